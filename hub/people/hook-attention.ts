/**
 * What an agent's hook event means for its person, inside the hook applier's unit of work
 * (hub/lifecycle/hook-events.ts): attention set or cleared through the registry, approvals the agent
 * moved past superseded, and for an approval hook the agent waits on, a pending approval and, after
 * the commit, the agent's answer.
 */
import { attentionFromHook, type AttentionFromHook } from '../../shared/attention-hooks.js';
import { getFlavor, hookFieldsOf, isApprovalHook, isQuestionCall } from '../../shared/flavors.js';
import { readText } from '../../shared/json-path.js';
import { allowRulesOf, permissionRequestOutput } from '../../shared/permission-output.js';
import { questionAnswerOutput } from '../../shared/question-output.js';
import { isObjectRecord } from '../../shared/protocol/json.js';
import type { HookEvent } from '../../shared/protocol/hooks.js';
import type { JsonObject } from '../../shared/protocol/json.js';
import { listPendingApprovals } from '../store/approvals.js';
import { getSession, type StoredSession } from '../store/sessions.js';
import type { Tx } from '../store/sql.js';
import type { ChangeSet } from '../services/changes.js';
import type { HubDeps } from '../services/deps.js';
import type { MappedHook } from '../services/hook-payload.js';
import { waitForDecision } from './approval-wait.js';
import { isClosing } from './approval-waiters.js';
import { openApprovalIn, supersedeOpenIn } from './approvals.js';
import { applyAttention } from './attention.js';
import type { ToolCallRef } from './same-call.js';

/**
 * What a hook payload said (shared/attention-hooks.ts), applied; null changes nothing. A clearing
 * hook means the agent moved on, so what it asked before was answered elsewhere: its approvals end
 * `superseded` — for a tool event (`call`), only the approvals of that same call (parallel
 * subagents each have their own; another call's activity answers nothing); for a prompt or the
 * session's end, all of them. Only those opened before `now`: an approval opened at `now` (its tool
 * call's own earlier hook arriving late) still waits. Attention clears once none is pending.
 * Returns their ids: after the commit, `wakeApprovalWaiters(deps, ids)`.
 */
export async function applyHookAttention(
  tx: Tx,
  changes: ChangeSet,
  session: StoredSession,
  effect: AttentionFromHook,
  now: number,
  call: ToolCallRef | null = null,
): Promise<string[]> {
  if (effect === null) return [];
  if (!('clear' in effect)) {
    await applyAttention(tx, changes, session, effect.set, now);
    return [];
  }
  const superseded = await supersedeOpenIn(tx, changes, session, now, { openedBefore: now, ...(call ? { sameCall: call } : {}) });
  if ((await listPendingApprovals(tx, session.sid)).length === 0) await applyAttention(tx, changes, session, null, now);
  return superseded;
}

/** The tool call a tool event names (null for other events): the approvals it can answer. */
export function toolCallOf(hook: MappedHook): ToolCallRef | null {
  if (hook.action !== 'tool-start' && hook.action !== 'tool-use' && hook.action !== 'tool-failure') return null;
  return { tool: hook.tool ?? 'unknown', input: hook.input ?? null, toolUseId: hook.agentToolUseId ?? null };
}

/** How long the hub waits on a sync approval hook: its approval wait, never longer than the bridge listens. */
function waitOf(deps: HubDeps, event: HookEvent): number {
  return Math.min(deps.config.approvalWaitMs, event.waitMs ?? Infinity);
}

/**
 * The hook's effect on its person, at the event's time `at` (`firedAt`: when it fired, on the hub's
 * clock): attention set or cleared (which supersedes approvals asked before it), and for an
 * approval hook the agent waits on (`sync`), a pending approval that expires when the wait ends
 * (from `hubNow`, the hub's clock). A spooled (not sync) approval hook opens none: nobody waits on
 * it; one that arrives after its wait was over (fired more than the approval wait before it reached
 * the hub) does not even set attention.
 */
export async function applyHookForPerson(
  deps: HubDeps,
  tx: Tx,
  changes: ChangeSet,
  event: HookEvent,
  hook: MappedHook,
  session: { namespace: string; sid: string },
  time: { at: number; firedAt: number; hubNow: number },
): Promise<{ superseded: string[]; approvalId?: string }> {
  const stored = (await getSession(tx, session))!;
  const hookName = readText(event.payload, hookFieldsOf(event.flavor, event.payload).event);
  // a tool call that asks the person (AskUserQuestion, through the --ask entry) waits like an approval hook
  const approvalHook = isApprovalHook(event.flavor, hookName) || isQuestionCall(event.flavor, hookName, hook.tool);
  // an approval hook delivered after its wait was over (spooled while the hub was away): the agent
  // asked in its terminal long ago and may have moved on; it must never show as waiting here
  const late = approvalHook && event.sync !== true && time.hubNow - time.firedAt > deps.config.approvalWaitMs;
  const effect = late ? null : attentionFromHook(event.flavor, event.payload);
  const superseded = await applyHookAttention(tx, changes, stored, effect, time.at, toolCallOf(hook));
  if (event.sync !== true || !approvalHook) return { superseded };
  const approval = await openApprovalIn(
    tx,
    changes,
    stored,
    { sid: session.sid, tool: hook.tool ?? 'unknown', input: hook.input ?? null, cwd: hook.cwd, toolUseId: hook.toolUseId ?? null, expiresAt: time.hubNow + waitOf(deps, event), alwaysOffer: alwaysOfferOf(event) },
    time.at,
  );
  return { superseded, approvalId: approval.approvalId };
}

/**
 * A sync approval hook's answer: the decision in the agent's form, or none (nobody decided within
 * the wait, it was answered in the terminal): the bridge then prints nothing and the agent asks its
 * user. `signal`: the hook's request closed; the approval ends `abandoned`. `askAgain`: this hub is
 * stopping (the approval ended `interrupted`): the bridge asks again once a hub answers.
 */
export async function hookAnswerOf(deps: HubDeps, event: HookEvent, approvalId: string, signal?: AbortSignal): Promise<JsonObject | 'ask-again' | undefined> {
  const decided = await waitForDecision(deps, approvalId, waitOf(deps, event), signal ? { signal } : {});
  if (decided === null) return isClosing(deps) ? 'ask-again' : undefined;
  const allow = decided.status === 'allowed';
  // a call that asks the person (AskUserQuestion, ExitPlanMode): answered in its own hook's form
  if (isQuestionCall(event.flavor, readText(event.payload, hookFieldsOf(event.flavor, event.payload).event), decided.tool)) {
    // an input cut at the size limit cannot be handed back whole: print nothing, the agent asks in its terminal
    if (allow && (decided.inputTruncated || !isObjectRecord(decided.input))) return undefined;
    const output = allow
      ? questionAnswerOutput({ allow: true, input: decided.input as Record<string, unknown>, ...(decided.answers ? { answers: decided.answers } : {}) })
      : questionAnswerOutput({ allow: false, message: decided.message });
    return output as unknown as JsonObject;
  }
  const answer = permissionRequestOutput({ decision: allow ? 'allow' : 'deny', message: decided.message, ...(allow && decided.always && decided.alwaysOffer ? { updatedPermissions: decided.alwaysOffer } : {}) });
  return answer as unknown as JsonObject;
}

/** The allow rules the agent suggested with its approval hook, where its flavor takes them back (`hookConfig.alwaysAllowField`). */
function alwaysOfferOf(event: HookEvent): ReturnType<typeof allowRulesOf> {
  const field = getFlavor(event.flavor)?.hookConfig?.alwaysAllowField;
  return field === undefined ? [] : allowRulesOf(event.payload[field]);
}
