/**
 * A session's attention (docs/attention.md): set and cleared as one unit of work with its
 * `update-session` event, like every change. Sources: the `/runner` event `attention`, the hub's
 * hook applier (through `attentionFromHook`), approvals, and the session's end.
 */
import type { AttentionFromHook } from '../../shared/attention-hooks.js';
import type { AttentionPayload } from '../../shared/protocol/attention.js';
import type { Attention, AttentionKind } from '../../shared/protocol/session.js';
import { listPendingApprovals } from '../store/approvals.js';
import { updateAttention, type StoredSession } from '../store/sessions.js';
import { touchTurn } from '../store/turns.js';
import type { Tx } from '../store/sql.js';
import { supersedeOpenIn } from './approvals.js';
import { runWrite, type ChangeSet } from './changes.js';
import type { Actor, HubDeps } from './deps.js';
import { requireSession } from './require-session.js';

export interface AttentionInput {
  kind: AttentionKind;
  message: string | null;
  tool: string | null;
}

function sameAttention(a: Attention | null, b: Attention | null): boolean {
  return a === b || (a !== null && b !== null && a.kind === b.kind && a.message === b.message && a.tool === b.tool);
}

/**
 * Sets (input) or clears (null) the session's attention inside a unit of work; an unchanged one
 * writes and broadcasts nothing. The same kind again keeps its `since` (how long the session has
 * waited does not restart because the agent repeated itself) and what it does not say: Claude
 * Code's permission Notification, which names no tool, after its PermissionRequest, which has no text.
 */
export async function applyAttention(tx: Tx, changes: ChangeSet, session: StoredSession, input: AttentionInput | null, now: number): Promise<void> {
  const current = session.attention;
  const same = current !== null && input !== null && current.kind === input.kind;
  const next =
    input === null
      ? null
      : same
        ? { kind: input.kind, since: current.since, message: input.message ?? current.message, tool: input.tool ?? current.tool }
        : { ...input, since: now };
  if (sameAttention(current, next)) return;
  await updateAttention(tx, { sid: session.sid, attention: next });
  // an attention change is its open turn's activity (spec 9: the turn timeout counts from it)
  if (session.currentTurnId !== null) await touchTurn(tx, { turnId: session.currentTurnId, at: now });
  session.attention = next;
  changes.changed(session, 'attention');
}

/**
 * What a hook payload said (shared/attention-hooks.ts), applied inside the hook applier's unit of
 * work; null changes nothing. A clearing hook means the agent moved on (a tool ran, a prompt came,
 * the session ended), so a permission still pending here was answered elsewhere: its approvals end
 * `superseded` (those opened before `now`; attention stays while one opened at `now` waits). Returns their ids: after the commit, `wakeApprovalWaiters(deps, ids)`.
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

/** The `/runner` event `attention`: the session's attention as stored afterwards. */
export function setAttention(deps: HubDeps, actor: Actor, payload: AttentionPayload): Promise<Attention | null> {
  return runWrite(
    deps,
    async (tx, changes, now) => {
      const session = await requireSession(tx, actor, payload.sid);
      const input = payload.kind === null ? null : { kind: payload.kind, message: payload.message ?? null, tool: payload.tool ?? null };
      await applyAttention(tx, changes, session, input, now);
      return session.attention;
    },
    { exceptSocketId: actor.socketId },
  );
}
