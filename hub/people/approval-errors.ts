/** How a decision is refused (docs/attention.md): the HTTP layer maps these to 404 and 409. */
import { HubError } from '../../shared/errors.js';
import type { Approval } from '../../shared/protocol/attention.js';

/** No such approval on this session (or it is another tenant's): 404 `approval_not_found`. */
export class ApprovalNotFound extends HubError {
  constructor(approvalId: string) {
    super('not_found', `approval ${approvalId} not found on this session`);
    this.name = 'ApprovalNotFound';
  }
}

/** The approval is no longer pending: 409 with the approval as it stands (the first decision). */
export class ApprovalConflict extends HubError {
  constructor(readonly approval: Approval) {
    super('conflict', conflictMessage(approval));
    this.name = 'ApprovalConflict';
  }
}

function conflictMessage(approval: Approval): string {
  const runner = approval.askedBy === 'runner';
  switch (approval.status) {
    case 'expired':
      return runner
        ? `approval ${approval.approvalId} expired: nobody decided within the runner's wait, so the runner asked again (decide the newer approval on this session)`
        : `approval ${approval.approvalId} expired: nobody decided while the agent waited, so it asks in its terminal`;
    case 'abandoned':
      return runner
        ? `approval ${approval.approvalId} was abandoned: the runner stopped waiting (its connection closed or the run ended); a live run asks again once connected`
        : `approval ${approval.approvalId} was abandoned: the agent's hook stopped waiting (ended or cut off), so the agent asks in its terminal`;
    case 'interrupted':
      return `approval ${approval.approvalId} was interrupted: the hub stopped or restarted before anyone decided; its ${approval.askedBy === 'runner' ? 'runner' : "agent's hook"} asks again (decide the newer approval on this session)`;
    case 'cancelled':
      return `approval ${approval.approvalId} was cancelled: ${approval.message ?? 'its run was interrupted or ended'}; the tool did not run, and a decision now would reach nobody`;
    case 'superseded':
      return `approval ${approval.approvalId} was superseded: it was answered in the agent's terminal`;
    default:
      return `approval ${approval.approvalId} was already decided: ${approval.status}`;
  }
}
