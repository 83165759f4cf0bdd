/**
 * What an agent's hook event means for its person, inside the hook applier's unit of work
 * (hub/lifecycle/hook-events.ts): attention set or cleared through the registry, approvals the agent
 * moved past superseded, and for an approval hook the agent waits on, a pending approval and, after
 * the commit, the agent's answer.
 */
import { attentionFromHook, type AttentionFromHook } from '../../shared/attention-hooks.js';
import { hookFieldsOf, isApprovalHook, isQuestionCall } from '../../shared/flavors.js';
import { readText } from '../../shared/json-path.js';
import { permissionRequestOutput } from '../../shared/permission-output.js';
import { questionAnswerOutput } from '../../shared/question-output.js';
import { isObjectRecord } from '../../shared/protocol/json.js';
import type { HookEvent } from '../../shared/protocol/hooks.js';
import type { JsonObject, JsonValue } from '../../shared/protocol/json.js';
import { listPendingApprovals } from '../store/approvals.js';
import { getSession, type StoredSession } from '../store/sessions.js';
import type { Tx } from '../store/sql.js';
import type { ChangeSet } from '../services/changes.js';
import type { HubDeps } from '../services/deps.js';
import { waitForDecision } from './approval-wait.js';
import { openApprovalIn, supersedeOpenIn } from './approvals.js';
import { applyAttention } from './attention.js';

/**
 * What a hook payload said (shared/attention-hooks.ts), applied; null changes nothing. A clearing
 * hook means the agent moved on (a tool ran, a prompt came, the session ended), so a permission
 * still pending here was answered elsewhere: its approvals end `superseded` (those opened before
 * `now`; attention stays while one opened at `now` waits). Returns their ids: after the commit,
 * `wakeApprovalWaiters(deps, ids)`.
 */
export async function applyHookAttention(tx: Tx, changes: ChangeSet, session: StoredSession, effect: AttentionFromHook, now: number): Promise<string[]> {
  if (effect === null) return [];
  if (!('clear' in effect)) {
    await applyAttention(tx, changes, session, effect.set, now);
    return [];
  }
  const superseded = await supersedeOpenIn(tx, changes, session, now, { openedBefore: now });
  // an approval opened at this very time (its tool call's own earlier hook arriving late) still waits
  if ((await listPendingApprovals(tx, session.sid)).length === 0) await applyAttention(tx, changes, session, null, now);
  return superseded;
}

/** The tool call an approval hook asks about, as the hook applier mapped it. */
export interface HookToolCall {
  tool?: string;
  input?: JsonValue;
  cwd: string | null;
  toolUseId?: string;
}

/**
 * The hook's effect on its person, at the event's time: attention set or cleared (which supersedes
 * approvals asked before it), and for an approval hook the agent waits on (`sync`), a pending
 * approval. A late (spooled, not sync) approval hook only sets attention: nobody waits on it.
 */
export async function applyHookForPerson(
  tx: Tx,
  changes: ChangeSet,
  event: HookEvent,
  call: HookToolCall,
  session: { namespace: string; sid: string },
  at: number,
): Promise<{ superseded: string[]; approvalId?: string }> {
  const stored = (await getSession(tx, session))!;
  const superseded = await applyHookAttention(tx, changes, stored, attentionFromHook(event.flavor, event.payload), at);
  const hookName = readText(event.payload, hookFieldsOf(event.flavor).event);
  if (event.sync !== true || !(isApprovalHook(event.flavor, hookName) || isQuestionCall(event.flavor, hookName, call.tool))) return { superseded };
  const approval = await openApprovalIn(tx, changes, stored, { sid: session.sid, tool: call.tool ?? 'unknown', input: call.input ?? null, cwd: call.cwd, toolUseId: call.toolUseId ?? null }, at);
  return { superseded, approvalId: approval.approvalId };
}

/**
 * A sync approval hook's answer: the decision in the agent's form, or none (nobody decided within
 * the wait, it was answered in the terminal): the bridge then prints nothing and the agent asks its
 * user. The hub waits at most its approval wait, and never longer than the bridge said it listens.
 */
export async function hookAnswerOf(deps: HubDeps, event: HookEvent, approvalId: string): Promise<JsonObject | undefined> {
  const ms = Math.min(deps.config.approvalWaitMs, event.waitMs ?? Infinity);
  const decided = await waitForDecision(deps, approvalId, ms);
  if (decided === null) return undefined;
  const allow = decided.status === 'allowed';
  // a call that asks the person (AskUserQuestion, ExitPlanMode): answered in its own hook's form
  if (isQuestionCall(event.flavor, readText(event.payload, hookFieldsOf(event.flavor).event), decided.tool)) {
    // an input cut at the size limit cannot be handed back whole: print nothing, the agent asks in its terminal
    if (allow && (decided.inputTruncated || !isObjectRecord(decided.input))) return undefined;
    const output = allow
      ? questionAnswerOutput({ allow: true, input: decided.input as Record<string, unknown>, ...(decided.answers ? { answers: decided.answers } : {}) })
      : questionAnswerOutput({ allow: false, message: decided.message });
    return output as unknown as JsonObject;
  }
  const answer = permissionRequestOutput({ decision: allow ? 'allow' : 'deny', message: decided.message });
  return answer as unknown as JsonObject;
}
