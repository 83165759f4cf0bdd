/**
 * Tool approvals (docs/attention.md): a hook's PermissionRequest opens one and waits
 * (`approval-wait.ts`); a person with an operator or admin token decides over HTTP; every change is
 * one unit of work with its `approval` event, and wakes the waiters on this process after it commits.
 */
import { randomUUID } from 'node:crypto';
import type { Approval, ApprovalAskedBy, Decision } from '../../shared/protocol/attention.js';
import type { JsonValue } from '../../shared/protocol/json.js';
import type { AllowRuleUpdate } from '../../shared/permission-output.js';
import { LIMITS } from '../../shared/protocol/limits.js';
import { getApproval, getApprovalById, insertApproval, listPendingApprovals } from '../store/approvals.js';
import type { StoredSession } from '../store/sessions.js';
import type { Tx } from '../store/sql.js';
import { actorWrite, runWrite, sessionWrite, type ChangeSet } from '../services/changes.js';
import type { Actor, HubDeps } from '../services/deps.js';
import { requireSession } from '../services/require-session.js';
import { truncateJsonField } from '../services/truncate.js';
import { endApproval, endedApproval } from './approval-end.js';
import { ApprovalConflict, ApprovalNotFound } from './approval-errors.js';
import { wakeApprovalWaiters } from './approval-waiters.js';
import { applyAttention } from './attention.js';
import { answersProblem, questionsOf } from './question-answers.js';
import { HubError } from '../../shared/errors.js';
import { endDeniedToolIn } from './denied-tool.js';
import { isSameCall, type ToolCallRef } from './same-call.js';

export interface OpenApprovalInput {
  sid: string;
  tool: string;
  input?: JsonValue;
  cwd?: string | null;
  toolUseId?: string | null;
  /** The agent's text, shown with the attention. */
  message?: string | null;
  /** When its waiter gives up (hub clock); absent: nobody waits on it. */
  expiresAt?: number | null;
  /** The allow rules the agent suggested, offered as "always allow this here" (none: not offered). */
  alwaysOffer?: readonly AllowRuleUpdate[];
  /** Who waits on it: the agent's hook (the default) or a machine runner, which asks again when the time is up. */
  askedBy?: ApprovalAskedBy;
}

/** The attention an approval sets: a question (its first question's text) for a call that asks one, else a permission. */
function attentionOfApproval(input: OpenApprovalInput, stored: JsonValue | null) {
  const questions = questionsOf(stored);
  if (questions !== null) return { kind: 'question' as const, message: questions[0]?.question ?? input.message ?? null, tool: input.tool };
  return { kind: 'permission' as const, message: input.message ?? null, tool: input.tool };
}

/** Opens a pending approval inside a unit of work; the session's attention becomes `permission`. */
export async function openApprovalIn(tx: Tx, changes: ChangeSet, session: StoredSession, input: OpenApprovalInput, now: number): Promise<Approval> {
  const cut = truncateJsonField(input.input ?? null, LIMITS.maxToolFieldBytes);
  const approval: Approval = {
    approvalId: randomUUID(),
    sid: session.sid,
    status: 'pending',
    tool: input.tool,
    input: cut.value,
    inputTruncated: cut.truncated,
    cwd: input.cwd ?? null,
    toolUseId: input.toolUseId ?? null,
    createdAt: now,
    decidedAt: null,
    decidedBy: null,
    decidedByLabel: null,
    message: null,
    expiresAt: input.expiresAt ?? null,
    alwaysOffer: input.alwaysOffer && input.alwaysOffer.length > 0 ? [...input.alwaysOffer] : null,
    always: false,
    askedBy: input.askedBy ?? 'hook',
  };
  await insertApproval(tx, { ...approval, namespace: session.namespace });
  changes.approval(session.namespace, approval);
  await applyAttention(tx, changes, session, attentionOfApproval(input, cut.value), now);
  return approval;
}

/** `open`: a pending approval of the actor's session. */
export function openApproval(deps: HubDeps, actor: Actor, input: OpenApprovalInput): Promise<Approval> {
  return runWrite(
    deps,
    async (tx, changes, now) => openApprovalIn(tx, changes, await requireSession(tx, actor, input.sid), input, now),
    // its session, current turn and pending approvals are read with the batch's (batch-reads.ts)
    { ...actorWrite(actor), reads: { namespace: actor.namespace, sid: input.sid, turn: true } },
  );
}

/** A decision leaves the session waiting for nobody once no approval is pending. */
export async function clearPermissionIfNoneLeft(tx: Tx, changes: ChangeSet, session: StoredSession, now: number): Promise<void> {
  if (session.attention?.kind !== 'permission' && session.attention?.kind !== 'question') return;
  if ((await listPendingApprovals(tx, session.sid)).length === 0) await applyAttention(tx, changes, session, null, now);
}

/**
 * `decide`: allow or deny a pending approval of the actor's session. `decidedBy` is the deciding
 * token's public id. A decided, expired or superseded approval: ApprovalConflict, nothing changes.
 */
export async function decideApproval(
  deps: HubDeps,
  actor: Actor,
  input: { sid: string; approvalId: string; decision: Decision; message?: string; answers?: Record<string, string>; always?: boolean; decidedBy: string; decidedByLabel?: string | null },
): Promise<Approval> {
  const decided = await runWrite(deps, async (tx, changes, now) => {
    const session = await requireSession(tx, actor, input.sid);
    const approval = await getApproval(tx, { approvalId: input.approvalId, sid: session.sid, namespace: session.namespace });
    if (!approval) throw new ApprovalNotFound(input.approvalId);
    if (approval.status !== 'pending') throw new ApprovalConflict(approval);
    const problem = answersProblem(approval.input, input.decision, input.answers);
    if (problem !== null) throw new HubError('invalid_payload', problem);
    const alwaysProblem = input.always !== true ? null : input.decision !== 'allow' ? 'always: only with decision "allow"' : approval.alwaysOffer === null ? 'always: this approval offers no rule to keep allowing (its agent suggested none, or cannot take one)' : null;
    if (alwaysProblem !== null) throw new HubError('invalid_payload', alwaysProblem);
    const end = { status: input.decision === 'allow' ? 'allowed' : 'denied', at: now, decidedBy: input.decidedBy, decidedByLabel: input.decidedByLabel ?? null, message: input.message ?? null, ...(input.answers ? { answers: input.answers } : {}), ...(input.always === true ? { always: true } : {}) } as const;
    if (!(await endApproval(tx, changes, session.namespace, approval, end))) throw new ApprovalConflict((await getApprovalById(tx, approval.approvalId))!.approval);
    await clearPermissionIfNoneLeft(tx, changes, session, now);
    const decided = endedApproval(approval, end);
    if (decided.status === 'denied') await endDeniedToolIn(tx, changes, session, decided, now);
    return decided;
    // its session, open turn and pending approvals read with the batch's (batch-reads.ts)
  }, { namespace: actor.namespace, reads: { ...sessionWrite(actor, input.sid).reads, ...(input.decision === 'deny' ? { runningTools: true } : {}) } });
  wakeApprovalWaiters(deps, [decided.approvalId]);
  return decided;
}

/**
 * Inside a unit of work: the session's pending approvals end `superseded` (the agent moved on).
 * `openedBefore`: only those opened before that time — a hook event supersedes what was asked before
 * it, not an approval its own tool call opened a moment earlier (Claude Code's async PreToolUse can
 * reach the hub after the PermissionRequest of the same call). `sameCall`: only the approvals of
 * that tool call (a tool event of one subagent says nothing about another's pending call).
 * `runnerAsks`: the session ended, so a machine runner's asks end `cancelled` with that (nobody
 * answered them in a terminal: its run is over).
 */
export async function supersedeOpenIn(
  tx: Tx,
  changes: ChangeSet,
  session: StoredSession,
  now: number,
  options: { openedBefore?: number; sameCall?: ToolCallRef; runnerAsks?: ApprovalCancel } = {},
): Promise<string[]> {
  const ended: string[] = [];
  const openedBefore = options.openedBefore ?? Infinity;
  for (const approval of await listPendingApprovals(tx, session.sid)) {
    if (approval.createdAt >= openedBefore) continue;
    if (options.sameCall && !isSameCall(approval, options.sameCall)) continue;
    const { runnerAsks } = options;
    const end =
      runnerAsks && approval.askedBy === 'runner'
        ? { status: 'cancelled' as const, at: now, decidedBy: runnerAsks.decidedBy, decidedByLabel: runnerAsks.decidedByLabel ?? null, message: runnerAsks.message }
        : { status: 'superseded' as const, at: now, decidedBy: null, message: null };
    if (await endApproval(tx, changes, session.namespace, approval, end)) ended.push(approval.approvalId);
  }
  return ended;
}

/** Who closed a runner's pending approvals and why, in plain words (the approval's `message`). */
export interface ApprovalCancel {
  message: string;
  decidedBy: string | null;
  decidedByLabel?: string | null;
}

/**
 * Inside a unit of work: the pending approvals a machine runner asked on this session end
 * `cancelled` (its run was interrupted or ended: the tool will not run, and a decision now would
 * reach nobody); the attention they set clears once none is pending. Returns their ids, to wake.
 */
export async function cancelRunnerAsksIn(tx: Tx, changes: ChangeSet, session: StoredSession, now: number, cancel: ApprovalCancel): Promise<string[]> {
  const ended: string[] = [];
  for (const approval of await listPendingApprovals(tx, session.sid)) {
    if (approval.askedBy !== 'runner') continue;
    if (await endApproval(tx, changes, session.namespace, approval, { status: 'cancelled', at: now, decidedBy: cancel.decidedBy, decidedByLabel: cancel.decidedByLabel ?? null, message: cancel.message })) ended.push(approval.approvalId);
  }
  if (ended.length > 0) await clearPermissionIfNoneLeft(tx, changes, session, now);
  return ended;
}

/** Why a runner's approval closed when its session ended, by the end's reason (the page shows it as is). */
export function runEndedWords(reason: string | null): string {
  if (reason === 'runner_stopped') return 'the machine runner stopped before anyone decided';
  if (reason === 'cancelled') return 'the run was stopped before anyone decided';
  return 'the run ended before anyone decided';
}

/** `cancelRunnerAsks`: a person interrupted or stopped a runner's run; its waiting approvals close, their waiters woken. */
export async function cancelRunnerAsks(deps: HubDeps, actor: Pick<Actor, 'namespace'>, sid: string, cancel: ApprovalCancel): Promise<number> {
  const ended = await runWrite(deps, async (tx, changes, now) => cancelRunnerAsksIn(tx, changes, await requireSession(tx, actor, sid), now, cancel), { namespace: actor.namespace });
  wakeApprovalWaiters(deps, ended);
  return ended.length;
}

/** `supersedeOpen`: the session's next tool event arrived, so its open approvals were answered elsewhere. */
export async function supersedeOpen(deps: HubDeps, actor: Actor, sid: string): Promise<number> {
  const ended = await runWrite(deps, async (tx, changes, now) => supersedeOpenIn(tx, changes, await requireSession(tx, actor, sid), now), { namespace: actor.namespace });
  wakeApprovalWaiters(deps, ended);
  return ended.length;
}
