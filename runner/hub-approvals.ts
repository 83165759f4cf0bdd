/**
 * A runner-driven agent's tool approvals and questions (AskUserQuestion), asked of a person through
 * the hub's approvals (docs/attention.md) with the runner's `approval-ask` event, named by the hub
 * session's sid: the run's identity on the hub, which stays when the agent's own id changes (a fresh
 * agent after `resume-failed`). When nobody decides within one ask's wait, or the hub is away, the
 * runner asks again: the agent waits for a person as long as it takes.
 */
import type { RunnerClient } from '../shared/client/runner-client.js';
import { APPROVAL_ASK_MAX_WAIT_MS, type ApprovalAskAck } from '../shared/protocol/attention.js';
import type { JsonValue } from '../shared/protocol/json.js';
import type { ApprovalDecision, ApprovalRequest } from './drivers/driver.js';

const RETRY_PAUSE_MS = 1000;

export interface ApprovalTarget {
  client: RunnerClient;
  /** The run's hub session, once it exists. */
  sid: () => string | null;
  cwd: string;
  /** True once the run is over: stop asking. */
  closed: () => boolean;
  waitMs?: number;
}

/** The hub's answer as the agent's decision; undefined when nobody decided yet. */
export function decisionOf(ack: ApprovalAskAck): ApprovalDecision | undefined {
  if (!ack.ok || ack.decision === null) return undefined;
  if (ack.decision === 'allow') return ack.answers ? { allow: true, answers: ack.answers } : { allow: true };
  return { allow: false, ...(ack.message ? { message: ack.message } : {}), ...(ack.status === 'cancelled' ? { cancelled: true as const } : {}) };
}

export async function askHub(target: ApprovalTarget, request: ApprovalRequest): Promise<ApprovalDecision> {
  const waitMs = target.waitMs ?? APPROVAL_ASK_MAX_WAIT_MS;
  while (!target.closed()) {
    const sid = target.sid();
    if (sid !== null && target.client.socket.connected) {
      try {
        const ack = await target.client.askApproval({ sid, tool: request.tool, toolUseId: request.toolUseId, input: request.input as JsonValue, cwd: target.cwd, waitMs });
        if (!ack.ok) return { allow: false, message: `the hub refused to open an approval (${ack.error.code}: ${ack.error.message})` };
        const decision = decisionOf(ack);
        if (decision) return decision;
        continue;
      } catch {
        // the hub is away or did not answer in time: ask again once it is back
      }
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
  }
  return { allow: false, message: 'the run ended' };
}
