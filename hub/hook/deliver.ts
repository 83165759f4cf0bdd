/**
 * Sends a flavor's spool to POST /api/hooks, oldest first, in requests under the route's limits,
 * and settles each event by the hub's answer: settled events, and only they, leave the spool (by
 * id). Runs under the spool lock (the caller holds it); the spool is its hub's and token's only
 * (./spool-target.ts), so the events go where they were written for.
 */
import { wireEvent } from './wire-event.js';
import { takerOf } from './taker-key.js';
import type { Taker } from '../../shared/protocol/messages.js';
import type { HookResult } from '../../shared/protocol/hooks.js';
import { LIMITS } from '../../shared/protocol/limits.js';
import { postHooks } from './send.js';
import type { Spool, SpooledEvent } from './spool.js';
import type { HubTarget } from './spool-target.js';

export type { HubTarget } from './spool-target.js';

/** One request's wait: a hook call's budget is shorter; a drainer's round does not wait on a silent hub for long. */
const REQUEST_TIMEOUT_MS = 4000;

export interface DeliveryReport {
  /** Events settled and removed from the spool (applied, duplicate, ignored, failed). */
  delivered: number;
  remaining: number;
  /** Each settled event's result, by id. */
  results: Map<string, HookResult>;
  /** The token was refused (401/403): every spooled event went to the rejected file. */
  refused?: { status: number; message: string; events: SpooledEvent[] };
  /** Why delivery stopped with events left, when it did. */
  stoppedBy?: string;
  /** Lines for stderr: events the hub refused for good or could not read. */
  notes: string[];
}

/** The first events of `pending` that fit one request. */
function nextChunk(pending: SpooledEvent[], wire: (event: SpooledEvent) => object): { events: SpooledEvent[]; body: string } {
  const room = LIMITS.maxHookBatchBytes - 64;
  const parts: string[] = [];
  let size = 0;
  for (const event of pending) {
    const text = JSON.stringify(wire(event));
    const bytes = Buffer.byteLength(text) + 1;
    if (parts.length > 0 && (size + bytes > room || parts.length >= LIMITS.maxHookBatchEvents)) break;
    parts.push(text);
    size += bytes;
  }
  return { events: pending.slice(0, parts.length), body: `{"events":[${parts.join(',')}]}` };
}

/**
 * `take`: the id of the event this hook process fired and prints the answer of; sent with `take`
 * (a message hook: the hub may answer with the person's queued messages). No other event is.
 */
export async function deliverSpool(spool: Spool, target: HubTarget, deadline: number, options: { take?: string } = {}): Promise<DeliveryReport> {
  const state = spool.state();
  // every event carries its session's taker key: the one that opens the session registers it
  const takers = new Map<string, Taker | undefined>();
  const takerFor = (tag: string) => (takers.has(tag) ? takers.get(tag) : takers.set(tag, takerOf(spool.dir, tag)).get(tag));
  const wire = (event: SpooledEvent) => {
    const taker = event.tag === null ? undefined : takerFor(event.tag);
    return { ...wireEvent(event), ...(taker ? { taker } : {}), ...(event.id === options.take ? { take: true } : {}) };
  };
  let pending = spool.read();
  const report: DeliveryReport = { delivered: 0, remaining: pending.length, results: new Map(), notes: [] };
  /** After a 400 the hub could not read a request: send one event per request to find the one at fault. */
  let oneByOne = false;
  const settle = (events: SpooledEvent[]) => {
    const done = new Set(events.map((e) => e.id));
    pending = pending.filter((e) => !done.has(e.id));
    report.delivered += events.length;
    spool.remove(done);
  };
  while (pending.length > 0) {
    const left = deadline - Date.now();
    if (left <= 0) {
      report.stoppedBy = 'time budget spent';
      break;
    }
    const chunk = oneByOne ? { events: pending.slice(0, 1), body: JSON.stringify({ events: [wire(pending[0]!)] }) } : nextChunk(pending, wire);
    if (chunk.events.length === 1 && Buffer.byteLength(chunk.body) > LIMITS.maxHookBatchBytes) {
      spool.reject(chunk.events, `larger than the route's ${LIMITS.maxHookBatchBytes} bytes`, Date.now());
      report.notes.push(`event ${chunk.events[0]!.id} is larger than ${LIMITS.maxHookBatchBytes} bytes; moved to ${spool.rejectedFile}`);
      settle(chunk.events);
      continue;
    }
    const outcome = await postHooks(target.url, target.token, chunk.body, Math.min(REQUEST_TIMEOUT_MS, left));
    if (outcome.kind === 'unreachable') {
      report.stoppedBy = outcome.message;
      state.lastError = { at: Date.now(), kind: 'unreachable', message: outcome.message };
      break;
    }
    if (outcome.kind === 'refused') {
      // the token is wrong for every event: all of them go aside, none is retried with it
      const events = pending;
      spool.reject(events, outcome.message, Date.now());
      settle(events);
      report.refused = { status: outcome.status, message: outcome.message, events };
      state.lastError = { at: Date.now(), kind: 'refused', message: outcome.message };
      break;
    }
    if (outcome.kind === 'unreadable') {
      if (chunk.events.length > 1) {
        oneByOne = true;
        continue;
      }
      spool.reject(chunk.events, outcome.message, Date.now());
      report.notes.push(`the hub could not take event ${chunk.events[0]!.id} (${outcome.message}); moved to ${spool.rejectedFile}`);
      state.lastError = { at: Date.now(), kind: 'unreadable', message: outcome.message };
      settle(chunk.events);
      continue;
    }
    const retry = new Set(outcome.results.filter((r) => r.outcome === 'retry').map((r) => r.id));
    for (const result of outcome.results) {
      report.results.set(result.id, result);
      if (result.outcome === 'failed') report.notes.push(`the hub refused event ${result.id}: ${result.detail ?? ''}`);
    }
    // an event the hub did not answer for stays, as does everything from the first retry on
    const firstKept = chunk.events.findIndex((e) => retry.has(e.id) || !report.results.has(e.id));
    const settled = firstKept === -1 ? chunk.events : chunk.events.slice(0, firstKept);
    settle(settled);
    state.lastDelivery = { at: Date.now(), delivered: report.delivered };
    if (settled.length < chunk.events.length) {
      report.stoppedBy = outcome.results.find((r) => retry.has(r.id))?.detail ?? 'the hub did not answer for every event';
      break;
    }
  }
  report.remaining = pending.length;
  // a delivery since makes an earlier error history (hook status and doctor report the present)
  if (state.lastError && state.lastDelivery && state.lastError.at <= state.lastDelivery.at) delete state.lastError;
  if (pending.length === 0 && state.lastError?.kind === 'unreachable') delete state.lastError;
  return report;
}
