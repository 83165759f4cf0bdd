/** Ending a pending approval, the one way every end goes (decision, expiry, supersession). */
import type { Approval, ApprovalStatus } from '../../shared/protocol/attention.js';
import { finishApproval } from '../store/approvals.js';
import type { Tx } from '../store/sql.js';
import type { ChangeSet } from '../services/changes.js';

export interface ApprovalEnd {
  status: Exclude<ApprovalStatus, 'pending'>;
  at: number;
  decidedBy: string | null;
  /** The deciding token's label, when it has one. */
  decidedByLabel?: string | null;
  message: string | null;
  /** An answered question's answers (AskUserQuestion). */
  answers?: Record<string, string>;
  /** Allowed with the rules the approval offers ("always allow this here"). */
  always?: boolean;
}

/** Ends a pending approval and records its event; false when it had ended already (compare-and-set). */
export async function endApproval(tx: Tx, changes: ChangeSet, namespace: string, approval: Approval, end: ApprovalEnd): Promise<boolean> {
  if (!(await finishApproval(tx, { approvalId: approval.approvalId, ...end }))) return false;
  changes.approval(namespace, endedApproval(approval, end));
  return true;
}

/** A decided approval's outcome for its waiter: the approval when allowed or denied, else null. */
export function outcomeOf(approval: Approval): Approval | null {
  return approval.status === 'allowed' || approval.status === 'denied' ? approval : null;
}

/** The approval as it stands once `end` applied. */
export function endedApproval(approval: Approval, end: ApprovalEnd): Approval {
  return { ...approval, status: end.status, decidedAt: end.at, decidedBy: end.decidedBy, decidedByLabel: end.decidedByLabel ?? null, message: end.message, ...(end.answers ? { answers: end.answers } : {}), always: end.always === true };
}
