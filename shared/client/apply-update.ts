import type { UpdateSessionBody } from '../protocol/broadcast.js';
import type { SessionSnapshot, TurnSummary } from '../protocol/session.js';

/**
 * Folds an `update-session` body into a snapshot. Versioned fields are taken only when their version
 * is newer than the one held, so a late or replayed event can never roll a document back (seed 000:
 * a stale cache must never be written back). Lifecycle and presence arrive in seq order and replace.
 */
export function applySessionUpdate(snapshot: SessionSnapshot, body: UpdateSessionBody): SessionSnapshot {
  const next = { ...snapshot };
  if (body.metadata && body.metadata.version > snapshot.metadata.version) next.metadata = body.metadata;
  if (body.agentState && body.agentState.version > snapshot.agentState.version) next.agentState = body.agentState;
  if (body.lifecycle) next.lifecycle = body.lifecycle;
  if (body.presence) next.presence = body.presence;
  return next;
}

/** A `turn` event: the open turn becomes `currentTurn`; closing the current one clears it. */
export function applyTurn(snapshot: SessionSnapshot, turn: TurnSummary): SessionSnapshot {
  if (turn.status === 'open') return { ...snapshot, currentTurn: turn };
  if (snapshot.currentTurn?.turnId === turn.turnId) return { ...snapshot, currentTurn: null };
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
