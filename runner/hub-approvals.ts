/**
 * A runner-driven agent's tool approvals and questions, opened as the hub's approvals (docs/attention.md)
 * through the hook route an approval hook uses (`POST /api/hooks`, `sync`): the flavor's approval hook
 * (or, for a tool that asks the person, its question hook) with the call's fields where the registry
 * says the flavor keeps them. The hub answers in the hook's own form (shared/permission-output.ts,
 * shared/question-output.ts), read back here into a decision. When the hub's approval wait runs out
 * with nobody deciding, the request is sent again: the agent waits for a person as long as it takes.
 */
import { randomUUID } from 'node:crypto';
import { getFlavor, hookFieldsOf, isQuestionCall } from '../shared/flavors.js';
import { HookBatchResponseSchema } from '../shared/protocol/hooks.js';
import type { PermissionRequestOutput } from '../shared/permission-output.js';
import type { PreToolUseOutput } from '../shared/question-output.js';
import type { ApprovalDecision, ApprovalRequest } from './drivers/driver.js';

const WAIT_MS = 600_000;
const RETRY_PAUSE_MS = 1000;

export interface ApprovalTarget {
  hubUrl: string;
  token: string;
  flavor: string;
  /** The agent's session id: the hub session's tag, where the hook route finds it. */
  agentSessionId: () => string;
  cwd: string;
  /** True once the run is over: stop asking. */
  closed: () => boolean;
}

function hookNameFor(flavor: string, tool: string): string | undefined {
  const config = getFlavor(flavor)?.hookConfig;
  const question = Object.keys(config?.questionHooks ?? {}).find((hook) => isQuestionCall(flavor, hook, tool));
  return question ?? config?.approvalHooks?.[0];
}

function set(payload: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = payload;
  for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  node[parts.at(-1)!] = value;
}

/** The hub's answer in the hook's form, as a decision. */
export function decisionOf(answer: Record<string, unknown>): ApprovalDecision | undefined {
  const output = (answer as Partial<PermissionRequestOutput | PreToolUseOutput>).hookSpecificOutput;
  if (!output) return undefined;
  if ('decision' in output) {
    return output.decision.behavior === 'allow' ? { allow: true } : { allow: false, ...(output.decision.message ? { message: output.decision.message } : {}) };
  }
  if (output.permissionDecision === 'allow') {
    const answers = (output.updatedInput as { answers?: Record<string, string> }).answers;
    return answers ? { allow: true, answers } : { allow: true };
  }
  return { allow: false, ...(output.permissionDecisionReason ? { message: output.permissionDecisionReason } : {}) };
}

export async function askHub(target: ApprovalTarget, request: ApprovalRequest): Promise<ApprovalDecision> {
  const hookName = hookNameFor(target.flavor, request.tool);
  if (!hookName) return { allow: false, message: `Session Hub cannot ask a person about ${request.tool} for this agent` };
  let seq = 0;
  while (!target.closed()) {
    const fields = hookFieldsOf(target.flavor, {});
    const payload: Record<string, unknown> = {};
    set(payload, fields.sessionId, target.agentSessionId());
    set(payload, fields.event, hookName);
    set(payload, fields.cwd, target.cwd);
    set(payload, fields.toolName, request.tool);
    set(payload, fields.toolInput, request.input);
    if (request.toolUseId) set(payload, fields.toolUseId, request.toolUseId);
    const event = { id: `runner-approval-${randomUUID()}`, flavor: target.flavor, firedAt: Date.now(), ageMs: 0, seq: seq++, payload, sync: true, waitMs: WAIT_MS };
    try {
      const response = await fetch(`${target.hubUrl}/api/hooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events: [event] }),
        signal: AbortSignal.timeout(WAIT_MS + 30_000),
      });
      if (response.status === 401 || response.status === 403) return { allow: false, message: `the hub refused to open an approval (${response.status})` };
      if (response.ok) {
        const body = HookBatchResponseSchema.safeParse(await response.json());
        const answer = body.success ? body.data.results[0]?.answer : undefined;
        const decision = answer ? decisionOf(answer) : undefined;
        if (decision) return decision;
      }
    } catch {
      // the hub is away: ask again once it is back
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
  }
  return { allow: false, message: 'the run ended' };
}
