import type { UpdateSessionBody } from '../protocol/broadcast.js';
import type { SessionSnapshot, TurnSummary } from '../protocol/session.js';

/**
 * Folds an `update-session` body into a snapshot. Versioned fields are taken only when their version
 * is newer than the one held, so a late or replayed event can never roll a document back (seed 000:
 * a stale cache must never be written back). Lifecycle and presence arrive in seq order and replace.
 * `at` (the event's createdAt) moves `updatedAt` as the hub does: metadata, agent state and
 * lifecycle count as an update of the session, a presence heartbeat alone does not.
 */
export function applySessionUpdate(snapshot: SessionSnapshot, body: UpdateSessionBody, at?: number): SessionSnapshot {
  const next = { ...snapshot };
  if (body.metadata && body.metadata.version > snapshot.metadata.version) next.metadata = body.metadata;
  if (body.agentState && body.agentState.version > snapshot.agentState.version) next.agentState = body.agentState;
  if (body.lifecycle) next.lifecycle = body.lifecycle;
  if (body.presence) next.presence = body.presence;
  // derived by the hub from all of the above and the current turn; always sent, always current
  next.title = body.title;
  next.activity = body.activity;
  next.lastPrompt = body.lastPrompt;
  if (at !== undefined && (body.metadata || body.agentState || body.lifecycle)) next.updatedAt = Math.max(snapshot.updatedAt, at);
  return next;
}

/**
 * A `turn` event: the open turn becomes `currentTurn`; closing the current one clears it. Either
 * moves `updatedAt` to `at` (the event's createdAt), as the hub does when it sets the current turn.
 */
export function applyTurn(snapshot: SessionSnapshot, turn: TurnSummary, at?: number): SessionSnapshot {
  const updatedAt = at === undefined ? snapshot.updatedAt : Math.max(snapshot.updatedAt, at);
  if (turn.status === 'open') return { ...snapshot, currentTurn: turn, updatedAt };
  if (snapshot.currentTurn?.turnId === turn.turnId) return { ...snapshot, currentTurn: null, updatedAt };
  return snapshot;
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
