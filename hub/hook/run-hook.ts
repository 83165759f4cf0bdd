/**
 * One hook invocation: record the payload in the spool (in order, under the lock), then deliver
 * the whole spool to the hub within a short time budget. Never throws and never waits long: an
 * agent must not be slowed down by its hub being away.
 */
import { RunnerClient } from '../../shared/client/runner-client.js';
import { isObjectRecord, type JsonObject } from '../../shared/protocol/json.js';
import { HookDelivery } from './deliver.js';
import { endsTurn, mapHookPayload } from './payload.js';
import { defaultSpoolDir, Spool } from './spool.js';

export interface HookOutcome {
  /** What happened to this payload: spooled (and maybe delivered), ignored, or unreadable. */
  received: 'spooled' | 'ignored' | 'invalid';
  note?: string;
  delivered: number;
  remaining: number;
  errors: string[];
}

export const DEFAULT_HOOK_BUDGET_MS = 2000;

function parsePayload(raw: string): JsonObject | null {
  try {
    const value: unknown = JSON.parse(raw);
    return isObjectRecord(value) ? (value as JsonObject) : null;
  } catch {
    return null;
  }
}

export async function runHook(flavor: string, rawPayload: string, env: NodeJS.ProcessEnv): Promise<HookOutcome> {
  const started = Date.now();
  const budget = Number(env.SESSION_HUB_HOOK_BUDGET_MS ?? DEFAULT_HOOK_BUDGET_MS);
  const deadline = started + budget;
  const spool = new Spool(defaultSpoolDir(env), flavor);
  const outcome: HookOutcome = { received: 'ignored', delivered: 0, remaining: 0, errors: [] };

  const payload = parsePayload(rawPayload);
  if (payload === null) return { ...outcome, received: 'invalid', note: 'stdin is not a JSON object' };

  const recorded = await spool.locked(budget / 2, () => {
    // read first: it adopts queued part files, whose turn ends count for this payload's ids
    const pending = spool.read();
    const records = spool.sessions();
    const mapped = mapHookPayload(flavor, payload, (tag) => records[tag]?.turnsEnded ?? 0, Date.now());
    if (mapped.kind === 'ignored') return mapped;
    const { event } = mapped;
    spool.write([...pending, event]);
    if (endsTurn(event.action)) {
      const record = (records[event.tag] ??= { turnsEnded: 0, touchedAt: event.receivedAt });
      record.turnsEnded++;
      record.touchedAt = event.receivedAt;
      spool.saveSessions(records);
    }
    return mapped;
  });
  if (recorded === null) {
    // another hook process holds the spool for longer than our budget: leave a part file for it
    const mapped = mapHookPayload(flavor, payload, (tag) => spool.sessions()[tag]?.turnsEnded ?? 0, Date.now());
    if (mapped.kind === 'event') spool.writePart(mapped.event);
    return { ...outcome, received: mapped.kind === 'event' ? 'spooled' : 'ignored', note: 'spool busy; queued', errors: spool.problems };
  }
  if (recorded.value.kind === 'ignored') outcome.note = recorded.value.why;
  else outcome.received = 'spooled';

  const url = env.SESSION_HUB_URL;
  const token = env.SESSION_HUB_TOKEN;
  if (!url || !token) {
    outcome.errors.push('SESSION_HUB_URL and SESSION_HUB_TOKEN must be set; the event stays spooled', ...spool.problems);
    return outcome;
  }

  await spool.locked(Math.max(0, deadline - Date.now()), async () => {
    const events = spool.read();
    outcome.remaining = events.length;
    if (events.length === 0) return;
    const remainingMs = () => Math.max(1, deadline - Date.now());
    let client: RunnerClient;
    try {
      client = await RunnerClient.connect({
        url,
        token,
        connectTimeoutMs: Math.min(1500, remainingMs()),
        requestTimeoutMs: Math.min(1000, remainingMs()),
        socketOptions: { reconnection: false },
      });
    } catch (error) {
      outcome.errors.push(`hub unreachable, ${events.length} event(s) spooled: ${(error as Error).message}`);
      return;
    }
    try {
      const records = spool.sessions();
      const report = await new HookDelivery(client, records, () => spool.saveSessions(records)).deliver(events, deadline);
      // sessions first: dying between the two re-delivers events the records already account for
      spool.saveSessions(records);
      spool.write(events.slice(report.delivered));
      outcome.delivered = report.delivered;
      outcome.remaining = events.length - report.delivered;
      for (const { event, error } of report.dropped) outcome.errors.push(`hub refused ${event.action} (${event.id}): ${error}`);
      if (report.stoppedBy) outcome.errors.push(`delivery stopped, ${outcome.remaining} event(s) spooled: ${report.stoppedBy}`);
    } finally {
      client.socket.disconnect();
    }
  });
  outcome.errors.push(...spool.problems);
  return outcome;
}
