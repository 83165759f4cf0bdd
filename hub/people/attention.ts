/**
 * A session's attention (docs/attention.md): set and cleared as one unit of work with its
 * `update-session` event, like every change. Sources: the `/runner` event `attention`, the hub's
 * hook applier (`hook-attention.ts`), approvals, and the session's end.
 */
import type { AttentionPayload } from '../../shared/protocol/attention.js';
import type { Attention, AttentionKind } from '../../shared/protocol/session.js';
import { updateAttention, type StoredSession } from '../store/sessions.js';
import { touchTurn } from '../store/turns.js';
import type { Tx } from '../store/sql.js';
import { runWrite, sessionWrite, type ChangeSet } from '../services/changes.js';
import type { Actor, HubDeps } from '../services/deps.js';
import { requireSession } from '../services/require-session.js';

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
    // its session read with the batch's (batch-reads.ts)
    sessionWrite(actor, payload.sid),
  );
}
