/**
 * Tool approvals (docs/attention.md): a hook's PermissionRequest opens one and waits; a person with
 * an operator or admin token decides over HTTP; the waiter hears it on this process at once and, on
 * another hub process sharing the store, by reading the store every `pollMs`. Every change is one
 * unit of work with its `approval` event.
 */
import { randomUUID } from 'node:crypto';
import { HubError } from '../../shared/errors.js';
import type { Approval, Decision } from '../../shared/protocol/attention.js';
import type { JsonValue } from '../../shared/protocol/json.js';
import { LIMITS } from '../../shared/protocol/limits.js';
import { finishApproval, getApproval, getApprovalById, insertApproval, listPendingApprovals } from '../store/approvals.js';
import type { StoredSession } from '../store/sessions.js';
import type { Store, Tx } from '../store/sql.js';
import { applyAttention } from './attention.js';
import { runWrite, type ChangeSet } from './changes.js';
import type { Actor, HubDeps } from './deps.js';
import { requireSession } from './require-session.js';
import { truncateJsonField } from './truncate.js';

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
  switch (approval.status) {
    case 'expired':
      return `approval ${approval.approvalId} expired: nobody decided while the agent waited, so it asks in its terminal`;
    case 'superseded':
      return `approval ${approval.approvalId} was superseded: it was answered in the agent's terminal`;
    default:
      return `approval ${approval.approvalId} was already decided: ${approval.status}`;
  }
}

export interface OpenApprovalInput {
  sid: string;
  tool: string;
  input?: JsonValue;
  cwd?: string | null;
  toolUseId?: string | null;
  /** The agent's text, shown with the attention. */
  message?: string | null;
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
    message: null,
  };
  await insertApproval(tx, { ...approval, namespace: session.namespace });
  changes.approval(session.namespace, approval);
  await applyAttention(tx, changes, session, { kind: 'permission', message: input.message ?? null, tool: input.tool }, now);
  return approval;
}

/** `open`: a pending approval of the actor's session. */
export function openApproval(deps: HubDeps, actor: Actor, input: OpenApprovalInput): Promise<Approval> {
  return runWrite(
    deps,
    async (tx, changes, now) => openApprovalIn(tx, changes, await requireSession(tx, actor, input.sid), input, now),
    { exceptSocketId: actor.socketId, namespace: actor.namespace },
  );
}

/** Ends a pending approval and records its event; false when it had ended already. */
async function finish(
  tx: Tx,
  changes: ChangeSet,
  namespace: string,
  approval: Approval,
  end: { status: 'allowed' | 'denied' | 'expired' | 'superseded'; at: number; decidedBy: string | null; message: string | null },
): Promise<boolean> {
  if (!(await finishApproval(tx, { approvalId: approval.approvalId, ...end }))) return false;
  changes.approval(namespace, { ...approval, status: end.status, decidedAt: end.at, decidedBy: end.decidedBy, message: end.message });
  return true;
}

/** A decision leaves the session waiting for nobody once no approval is pending. */
async function clearPermissionIfNoneLeft(tx: Tx, changes: ChangeSet, session: StoredSession, now: number): Promise<void> {
  if (session.attention?.kind !== 'permission') return;
  if ((await listPendingApprovals(tx, session.sid)).length === 0) await applyAttention(tx, changes, session, null, now);
}

/**
 * `decide`: allow or deny a pending approval of the actor's session. `decidedBy` is the deciding
 * token's public id. A decided, expired or superseded approval: ApprovalConflict, nothing changes.
 */
export async function decideApproval(
  deps: HubDeps,
  actor: Actor,
  input: { sid: string; approvalId: string; decision: Decision; message?: string; decidedBy: string },
): Promise<Approval> {
  const decided = await runWrite(deps, async (tx, changes, now) => {
    const session = await requireSession(tx, actor, input.sid);
    const approval = await getApproval(tx, { approvalId: input.approvalId, sid: session.sid, namespace: session.namespace });
    if (!approval) throw new ApprovalNotFound(input.approvalId);
    if (approval.status !== 'pending') throw new ApprovalConflict(approval);
    const end = { status: input.decision === 'allow' ? 'allowed' : 'denied', at: now, decidedBy: input.decidedBy, message: input.message ?? null } as const;
    if (!(await finish(tx, changes, session.namespace, approval, end))) throw new ApprovalConflict((await getApprovalById(tx, approval.approvalId))!.approval);
    await clearPermissionIfNoneLeft(tx, changes, session, now);
    return { ...approval, status: end.status, decidedAt: end.at, decidedBy: end.decidedBy, message: end.message };
  }, { namespace: actor.namespace });
  wake(deps, decided.approvalId);
  return decided;
}

/**
 * Inside a unit of work: the session's pending approvals end `superseded` (the agent moved on).
 * `openedBefore`: only those opened before that time — a hook event supersedes what was asked before
 * it, not an approval its own tool call opened a moment earlier (Claude Code's async PreToolUse can
 * reach the hub after the PermissionRequest of the same call).
 */
export async function supersedeOpenIn(tx: Tx, changes: ChangeSet, session: StoredSession, now: number, options: { openedBefore?: number } = {}): Promise<string[]> {
  const ended: string[] = [];
  const openedBefore = options.openedBefore ?? Infinity;
  for (const approval of await listPendingApprovals(tx, session.sid)) {
    if (approval.createdAt >= openedBefore) continue;
    if (await finish(tx, changes, session.namespace, approval, { status: 'superseded', at: now, decidedBy: null, message: null })) ended.push(approval.approvalId);
  }
  return ended;
}

/** `supersedeOpen`: the session's next tool event arrived, so its open approvals were answered elsewhere. */
export async function supersedeOpen(deps: HubDeps, actor: Actor, sid: string): Promise<number> {
  const ended = await runWrite(deps, async (tx, changes, now) => supersedeOpenIn(tx, changes, await requireSession(tx, actor, sid), now), { namespace: actor.namespace });
  for (const approvalId of ended) wake(deps, approvalId);
  return ended.length;
}

/**
 * Waiters of one hub (its store), by approval id: woken right after a change on this hub commits.
 * Per store, so another hub — even one in the same Node process, as in tests — is only heard
 * through the store.
 */
const waitersByStore = new WeakMap<Store, Map<string, Set<() => void>>>();

function waitersOf(deps: HubDeps): Map<string, Set<() => void>> {
  let waiters = waitersByStore.get(deps.store);
  if (!waiters) waitersByStore.set(deps.store, (waiters = new Map()));
  return waiters;
}

/** Hubs shutting down: their waiters stop waiting (the approval expires; the agent asks in its terminal). */
const closingStores = new WeakSet<Store>();

/** At shutdown: every waiter of this hub answers now, its approval `expired`, so no request holds the stop. */
export function releaseApprovalWaiters(deps: HubDeps): void {
  closingStores.add(deps.store);
  for (const waiters of [...waitersOf(deps).values()]) for (const waiter of [...waiters]) waiter();
}

function wake(deps: HubDeps, approvalId: string): void {
  for (const waiter of waitersOf(deps).get(approvalId) ?? []) waiter();
}

/** After a unit of work that ended approvals (`supersedeOpenIn`, `applyHookAttention`) commits: their waiters here answer at once. */
export function wakeApprovalWaiters(deps: HubDeps, approvalIds: readonly string[]): void {
  for (const approvalId of approvalIds) wake(deps, approvalId);
}

function sleepOrWake(deps: HubDeps, approvalId: string, ms: number): Promise<void> {
  const waiters = waitersOf(deps);
  return new Promise((resolve) => {
    let set = waiters.get(approvalId);
    if (!set) waiters.set(approvalId, (set = new Set()));
    const done = () => {
      clearTimeout(timer);
      set.delete(done);
      if (set.size === 0) waiters.delete(approvalId);
      resolve();
    };
    const timer = setTimeout(done, ms);
    set.add(done);
  });
}

/** A decided approval's outcome for its waiter: the approval when allowed or denied, else null. */
function outcomeOf(approval: Approval): Approval | null {
  return approval.status === 'allowed' || approval.status === 'denied' ? approval : null;
}

/** How often a waiter reads the store, for decisions made on another hub process. */
export const APPROVAL_POLL_MS = 200;

/**
 * `waitForDecision`: resolves with the approval once allowed or denied, or null when it ends
 * otherwise or nobody decides within `ms` — then it ends `expired` (unless a decision won the race,
 * which is returned). A decision on this process wakes the waiter at once; one on another process
 * is read from the store within `pollMs`.
 */
export async function waitForDecision(deps: HubDeps, approvalId: string, ms: number, options: { pollMs?: number } = {}): Promise<Approval | null> {
  const pollMs = options.pollMs ?? APPROVAL_POLL_MS;
  const deadline = performance.now() + ms;
  for (;;) {
    const found = await getApprovalById(deps.store, approvalId);
    if (!found) throw new ApprovalNotFound(approvalId);
    if (found.approval.status !== 'pending') return outcomeOf(found.approval);
    const remaining = deadline - performance.now();
    if (remaining <= 0 || closingStores.has(deps.store)) return expire(deps, found.namespace, found.approval);
    await sleepOrWake(deps, approvalId, Math.min(pollMs, remaining));
  }
}

async function expire(deps: HubDeps, namespace: string, approval: Approval): Promise<Approval | null> {
  const final = await runWrite(deps, async (tx, changes, now) => {
    if (await finish(tx, changes, namespace, approval, { status: 'expired', at: now, decidedBy: null, message: null })) return null;
    // a decision committed between the last read and this write: it wins
    return outcomeOf((await getApprovalById(tx, approval.approvalId))!.approval);
  }, { namespace });
  wake(deps, approval.approvalId);
  return final;
}
