/**
 * A runner's `approval-ask`: the approval opened on the session the runner names by sid, then the
 * runner's wait for a person (approval-wait.ts), answered as a decision. The hook route finds its
 * session by the agent's id; a runner knows the sid, which stays the same when the agent's id changes.
 */
import type { ApprovalAskAck, ApprovalAskPayload } from '../../shared/protocol/attention.js';
import type { Actor, HubDeps } from '../services/deps.js';
import { waitForDecision } from './approval-wait.js';
import { getApprovalById } from '../store/approvals.js';
import { openApproval } from './approvals.js';

export async function askPerson(deps: HubDeps, actor: Actor, ask: ApprovalAskPayload, signal: AbortSignal): Promise<ApprovalAskAck> {
  const approval = await openApproval(deps, actor, { sid: ask.sid, tool: ask.tool, input: ask.input, cwd: ask.cwd, toolUseId: ask.toolUseId, expiresAt: deps.clock.now() + ask.waitMs, askedBy: 'runner' });
  const decided = await waitForDecision(deps, approval.approvalId, ask.waitMs, { signal });
  if (decided === null) {
    // closed by an Interrupt or Stop of its run: the tool must not run, and asking again would reopen it
    const ended = (await getApprovalById(deps.store, approval.approvalId))?.approval;
    if (ended?.status === 'cancelled') return { ok: true, approvalId: approval.approvalId, decision: 'deny', status: 'cancelled', message: ended.message };
    return { ok: true, approvalId: approval.approvalId, decision: null, ...(ended ? { status: ended.status } : {}), message: null };
  }
  return {
    ok: true,
    approvalId: approval.approvalId,
    status: decided.status,
    decision: decided.status === 'allowed' ? 'allow' : 'deny',
    message: decided.message,
    ...(decided.answers ? { answers: decided.answers } : {}),
  };
}
