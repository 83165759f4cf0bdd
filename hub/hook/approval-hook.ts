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

export async function askHub(
  spool: Spool,
  event: Omit<SpooledEvent, 'seq'>,
  target: HubTarget,
  options: { budget: number; env: NodeJS.ProcessEnv; onSpooled?: (limitMs: number) => void },
): Promise<Asked> {
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
  const bound = approvalBoundMs(options.env);
  options.onSpooled?.(bound);
  const body = JSON.stringify({ events: [{ ...wireEvent({ ...event, seq }), sync: true, waitMs: hubWaitFor(bound) }] });
  const sent = await postHooks(target.url, target.token, body, bound);
  if (sent.kind !== 'answered') return { kind: 'spool', seq, errors: [`no decision from the hub (${sent.message}); the agent asks in its terminal`] };
  const result = sent.results.find((r) => r.id === event.id);
  if (result === undefined || result.outcome === 'retry') return { kind: 'spool', seq, errors: [] };
  const errors = result.outcome === 'failed' ? [`the hub refused event ${event.id}: ${result.detail ?? ''}`] : [];
  return { kind: 'answered', ...(result.answer ? { answer: result.answer } : {}), errors };
}
