import type { TurnBody, UpdateSessionBody } from '../protocol/broadcast.js';
import type { SessionSnapshot } from '../protocol/session.js';

/**
 * Folds an `update-session` body into a snapshot. Versioned fields are taken only when their version
 * is newer than the one held, so a late or replayed event can never roll a document back (seed 000:
 * a stale cache must never be written back). Lifecycle and presence arrive in seq order and replace.
 * Attention arrives as `{ value }` when it changed (absent or null: unchanged) and replaces.
 * `at` (the event's createdAt) moves `updatedAt` as the hub does: metadata, agent state and
 * lifecycle count as an update of the session, a presence heartbeat or an attention change alone do not.
 */
export function applySessionUpdate(snapshot: SessionSnapshot, body: UpdateSessionBody, at?: number): SessionSnapshot {
  const next = { ...snapshot };
  if (body.metadata && body.metadata.version > snapshot.metadata.version) next.metadata = body.metadata;
  if (body.agentState && body.agentState.version > snapshot.agentState.version) next.agentState = body.agentState;
  if (body.lifecycle) next.lifecycle = body.lifecycle;
  if (body.presence) next.presence = body.presence;
  if (body.attention) next.attention = body.attention.value;
  // derived by the hub from all of the above and the current turn; sent when they may have moved
  if (body.title !== undefined) next.title = body.title;
  if (body.activity !== undefined) next.activity = body.activity;
  if (body.lastPrompt !== undefined) next.lastPrompt = body.lastPrompt;
  if (at !== undefined && (body.metadata || body.agentState || body.lifecycle)) next.updatedAt = Math.max(snapshot.updatedAt, at);
  // writes are activity (the hub's own metadata versions are not, so this may run a little ahead)
  if (at !== undefined && (body.metadata || body.agentState)) next.lastActivityAt = Math.max(snapshot.lastActivityAt, at);
  return next;
}

/**
 * A `turn` event: the open turn becomes `currentTurn`; closing the current one clears it. Either
 * moves `updatedAt` to `at` (the event's createdAt), as the hub does when it sets the current turn.
 * Every turn event is activity; `sessionUsage`, when present, is the session's new usage totals.
 */
export function applyTurn(snapshot: SessionSnapshot, body: Pick<TurnBody, 'turn' | 'sessionUsage'>, at?: number): SessionSnapshot {
  const { turn } = body;
  const withUsage = body.sessionUsage ? { ...snapshot, usage: body.sessionUsage } : snapshot;
  const activity = at === undefined ? withUsage : { ...withUsage, lastActivityAt: Math.max(snapshot.lastActivityAt, at) };
  const updatedAt = at === undefined ? snapshot.updatedAt : Math.max(snapshot.updatedAt, at);
  if (turn.status === 'open') return { ...activity, currentTurn: turn, updatedAt };
  if (snapshot.currentTurn?.turnId === turn.turnId) return { ...activity, currentTurn: null, updatedAt };
  return activity;
}

/** Keeps the newer versioned fields of two snapshots of one session (e.g. cache vs. a fresh join). */
export function newerSnapshot(held: SessionSnapshot | undefined, fresh: SessionSnapshot): SessionSnapshot {
  if (!held) return fresh;
  return {
    ...fresh,
    metadata: held.metadata.version > fresh.metadata.version ? held.metadata : fresh.metadata,
    agentState: held.agentState.version > fresh.agentState.version ? held.agentState : fresh.agentState,
  };
}
