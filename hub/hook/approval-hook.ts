/**
 * A hook the agent waits on for an approval (the registry's `hookConfig.approvalHooks`: Claude
 * Code's PermissionRequest). Its seq is taken under the spool lock (and any earlier spooled events
 * are sent first, so the hub sees them in order), then the lock is RELEASED and the event alone is
 * sent `sync`: the hub opens an approval and answers with the decision. Meanwhile the agent's other
 * hook processes take the lock and deliver as usual. Never blocks the agent past its bound: an
 * unreachable hub, no answer, or a busy spool give back "spool it as usual" (nothing printed).
 * Part of the bridge bundle (node built-ins only).
 */
import { MAX_APPROVAL_WAIT_MS } from '../../shared/approval-wait.js';
import type { HookResult } from '../../shared/protocol/hooks.js';
import { deliverSpool, type HubTarget } from './deliver.js';
import { newEventId } from './event-id.js';
import { postJson } from './http-post.js';
import { postHooks } from './send.js';
import type { Spool, SpooledEvent } from './spool.js';
import { wireEvent } from './wire-event.js';

/**
 * How long the bridge listens for a decision: the longest the hub may wait and the time its answer
 * needs to come back, below the agent's hook timeout that `hook install` writes. The hub ends the
 * wait at its own `SESSION_HUB_APPROVAL_WAIT_MS`, so that setting alone decides (shared/approval-wait.ts).
 */
export const DEFAULT_APPROVAL_BOUND_MS = MAX_APPROVAL_WAIT_MS + 3000;

/** The bound from `SESSION_HUB_HOOK_WAIT_MS` (a positive number of ms: only to wait less than the hub), else the default. */
export function approvalBoundMs(env: NodeJS.ProcessEnv): number {
  const given = Number(env.SESSION_HUB_HOOK_WAIT_MS);
  return Number.isFinite(given) && given > 0 ? given : DEFAULT_APPROVAL_BOUND_MS;
}

/** The hub's wait asked for: the bound less the time its answer needs to come back (at most 3 s). */
export function hubWaitFor(boundMs: number): number {
  return Math.max(1, Math.round(boundMs - Math.min(3000, boundMs / 5)));
}

export type Asked =
  /** The hub took the event: `answer` is what the agent reads (absent: nobody decided, print nothing). */
  | { kind: 'answered'; answer?: HookResult['answer']; errors: string[] }
  /** Not taken: spool the event as usual (with `seq` when it was taken), so nothing is lost. */
  | { kind: 'spool'; seq?: number; errors: string[] };

/** How long a hook whose hub went away mid-wait waits for one to answer again (a restart), within its own bound. */
const HUB_BACK_WITHIN_MS = 60_000;
const HUB_BACK_POLL_MS = 500;
/** A connection the hub closed before answering (it stopped or died mid-wait), not one it never took. */
const LOST_MID_WAIT = /ECONNRESET|EPIPE|closed without an HTTP answer|socket hang up/;

/**
 * Asks the hub for the agent's decision, within the agent's wait. A hub that stops or dies while the
 * approval waits (a restart: its answer says `askAgain`, or the connection drops before an answer)
 * does not send the agent back to its terminal: once a hub answers again (within a minute) the
 * event is asked again under a new id, a new approval on the same session (issue 46.4); the one
 * before reads `interrupted`. A hub that cannot be reached at all: the agent asks in its terminal,
 * as before.
 */
export async function askHub(
  spool: Spool,
  event: Omit<SpooledEvent, 'seq'>,
  target: HubTarget,
  options: { budget: number; env: NodeJS.ProcessEnv; onSpooled?: (limitMs: number) => void },
): Promise<Asked> {
  const deadline = Date.now() + approvalBoundMs(options.env);
  let asking = event;
  for (;;) {
    const asked = await askOnce(spool, asking, target, { ...options, boundMs: deadline - Date.now() });
    if (asked.kind !== 'again') return asked;
    const back = await hubAnswersAgain(target, Math.min(Date.now() + HUB_BACK_WITHIN_MS, deadline - 3000));
    if (!back) return { kind: 'spool', seq: asked.seq, errors: ['the hub went away while the approval waited and did not come back in time; the agent asks in its terminal'] };
    asking = { ...event, id: newEventId(Date.now()) };
  }
}

/** Polls until a hub answers any HTTP at all on the target (true), or `until` passes (false). */
async function hubAnswersAgain(target: HubTarget, until: number): Promise<boolean> {
  while (Date.now() < until) {
    try {
      await postJson(new URL('/api/hooks', target.url), { authorization: `Bearer ${target.token}` }, '{"events":[]}', 2000);
      return true;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, HUB_BACK_POLL_MS));
    }
  }
  return false;
}

async function askOnce(
  spool: Spool,
  event: Omit<SpooledEvent, 'seq'>,
  target: HubTarget,
  options: { budget: number; env: NodeJS.ProcessEnv; onSpooled?: (limitMs: number) => void; boundMs: number },
): Promise<Asked | { kind: 'again'; seq: number }> {
  const taken = await spool.locked(options.budget / 2, async () => {
    spool.adoptParts();
    const seq = spool.nextSeq(event.tag, event.firedAt);
    spool.saveState(); // the seq is this event's for good, whatever happens next
    // earlier events first (a spool an unreachable hub left): the hub applies a session in order
    const report = spool.read().length > 0 ? await deliverSpool(spool, target, Date.now() + options.budget / 2) : undefined;
    return { seq, behind: report !== undefined && (report.remaining > 0 || report.refused !== undefined) };
  });
  if (taken === null) return { kind: 'spool', errors: ['spool busy: this approval is not offered to the hub; the agent asks in its terminal'] };
  const { seq, behind } = taken.value;
  if (behind) return { kind: 'spool', seq, errors: [] };

  // the lock is free again: the wait holds nothing other hook processes need
  const bound = options.boundMs;
  options.onSpooled?.(bound);
  const body = JSON.stringify({ events: [{ ...wireEvent({ ...event, seq }), sync: true, waitMs: hubWaitFor(bound) }] });
  const sent = await postHooks(target.url, target.token, body, bound);
  if (sent.kind === 'unreachable' && LOST_MID_WAIT.test(sent.message)) return { kind: 'again', seq };
  if (sent.kind !== 'answered') return { kind: 'spool', seq, errors: [`no decision from the hub (${sent.message}); the agent asks in its terminal`] };
  const result = sent.results.find((r) => r.id === event.id);
  if (result?.askAgain === true) return { kind: 'again', seq };
  if (result === undefined || result.outcome === 'retry') return { kind: 'spool', seq, errors: [] };
  const errors = result.outcome === 'failed' ? [`the hub refused event ${event.id}: ${result.detail ?? ''}`] : [];
  return { kind: 'answered', ...(result.answer ? { answer: result.answer } : {}), errors };
}
