/**
 * The hook's side of an approval: wait for a decision. A decision on this process wakes the waiter at
 * once; one on another hub process sharing the store is read from the store every `pollMs`.
 */
import type { Approval } from '../../shared/protocol/attention.js';
import { getApprovalById } from '../store/approvals.js';
import { runWrite } from '../services/changes.js';
import type { HubDeps } from '../services/deps.js';
import { endApproval, outcomeOf } from './approval-end.js';
import { ApprovalNotFound } from './approval-errors.js';
import { isClosing, sleepOrWake, wakeApprovalWaiters } from './approval-waiters.js';
import { endInterruptedIn } from './hub-stopped.js';

/** How often a waiter reads the store, for decisions made on another hub process. */
export const APPROVAL_POLL_MS = 200;

/**
 * `waitForDecision`: resolves with the approval once allowed or denied, or null when it ends
 * otherwise or nobody decides within `ms` — then it ends `expired` (unless a decision won the race,
 * which is returned). `signal`: the waiting request closed (the hook process was killed or cut
 * off): the approval ends `abandoned` at once, so nobody is told "allowed" with no one to hear it.
 */
export async function waitForDecision(deps: HubDeps, approvalId: string, ms: number, options: { pollMs?: number; signal?: AbortSignal } = {}): Promise<Approval | null> {
  const pollMs = options.pollMs ?? APPROVAL_POLL_MS;
  const deadline = performance.now() + ms;
  const { signal } = options;
  const wakeOnAbort = () => wakeApprovalWaiters(deps, [approvalId]);
  signal?.addEventListener('abort', wakeOnAbort, { once: true });
  try {
    for (;;) {
      const found = await getApprovalById(deps.store, approvalId);
      if (!found) throw new ApprovalNotFound(approvalId);
      if (found.approval.status !== 'pending') return outcomeOf(found.approval);
      // a hub stopping: the waiter asks again on the next (issue 46.4), not "nobody decided in time";
      // first, as the connections the stop closes are no waiter leaving
      if (isClosing(deps)) return end(deps, found.namespace, found.approval, 'interrupted');
      if (signal?.aborted) return end(deps, found.namespace, found.approval, 'abandoned');
      const remaining = deadline - performance.now();
      if (remaining <= 0) return end(deps, found.namespace, found.approval, 'expired');
      await sleepOrWake(deps, approvalId, Math.min(pollMs, remaining));
    }
  } finally {
    signal?.removeEventListener('abort', wakeOnAbort);
  }
}

async function end(deps: HubDeps, namespace: string, approval: Approval, status: 'expired' | 'abandoned' | 'interrupted'): Promise<Approval | null> {
  const final = await runWrite(deps, async (tx, changes, now) => {
    // interrupted: its session stops reading "needs you" when nothing is left to decide
    const ended = status === 'interrupted' ? (await endInterruptedIn(tx, changes, [{ approval, namespace }], now)) > 0 : await endApproval(tx, changes, namespace, approval, { status, at: now, decidedBy: null, message: null });
    if (ended) return null;
    // a decision committed between the last read and this write: it wins
    return outcomeOf((await getApprovalById(tx, approval.approvalId))!.approval);
  }, { namespace });
  wakeApprovalWaiters(deps, [approval.approvalId]);
  return final;
}
