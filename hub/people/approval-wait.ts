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

/** How often a waiter reads the store, for decisions made on another hub process. */
export const APPROVAL_POLL_MS = 200;

/**
 * `waitForDecision`: resolves with the approval once allowed or denied, or null when it ends
 * otherwise or nobody decides within `ms` — then it ends `expired` (unless a decision won the race,
 * which is returned).
 */
export async function waitForDecision(deps: HubDeps, approvalId: string, ms: number, options: { pollMs?: number } = {}): Promise<Approval | null> {
  const pollMs = options.pollMs ?? APPROVAL_POLL_MS;
  const deadline = performance.now() + ms;
  for (;;) {
    const found = await getApprovalById(deps.store, approvalId);
    if (!found) throw new ApprovalNotFound(approvalId);
    if (found.approval.status !== 'pending') return outcomeOf(found.approval);
    const remaining = deadline - performance.now();
    if (remaining <= 0 || isClosing(deps)) return expire(deps, found.namespace, found.approval);
    await sleepOrWake(deps, approvalId, Math.min(pollMs, remaining));
  }
}

async function expire(deps: HubDeps, namespace: string, approval: Approval): Promise<Approval | null> {
  const final = await runWrite(deps, async (tx, changes, now) => {
    if (await endApproval(tx, changes, namespace, approval, { status: 'expired', at: now, decidedBy: null, message: null })) return null;
    // a decision committed between the last read and this write: it wins
    return outcomeOf((await getApprovalById(tx, approval.approvalId))!.approval);
  });
  wakeApprovalWaiters(deps, [approval.approvalId]);
  return final;
}
