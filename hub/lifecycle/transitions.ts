/**
 * State changes of runs, turns and the lifecycle, each done inside the caller's unit of work. None of
 * them touches metadata, so no end, archive, crash or sweep can ever remove a resume token.
 */
import { randomUUID } from 'node:crypto';
import type { LifecycleState, RunEndStatus, TurnStatus, TurnSummary, Writer } from '../../shared/protocol/session.js';
import { runEndedWords, supersedeOpenIn } from '../people/approvals.js';
import { applyAttention } from '../people/attention.js';
import type { ChangeSet } from '../services/changes.js';
import type { Tx } from '../store/sql.js';
import { endRun, insertRun } from '../store/runs.js';
import { touchActivity, updateCurrentTurn, updateLastRun, updateLifecycle, updatePresence, type StoredSession } from '../store/sessions.js';
import { abandonRunningToolsOfSession, closeTurn, getTurn } from '../store/turns.js';

export async function setLifecycle(
  tx: Tx,
  changes: ChangeSet,
  session: StoredSession,
  input: { state: LifecycleState; reason: string | null; by: Writer | null; now: number },
): Promise<void> {
  await updateLifecycle(tx, { sid: session.sid, state: input.state, since: input.now, reason: input.reason, by: input.by });
  session.lifecycle = { state: input.state, since: input.now, reason: input.reason, by: input.by };
  changes.changed(session, 'lifecycle');
  // an ended session waits for nobody: its attention clears and what it asked for is moot (its
  // approvals' waiters read that from the store); a tool still running will not end by itself
  if (input.state === 'ended' || input.state === 'archived') {
    await applyAttention(tx, changes, session, null, input.now);
    // a runner's asks were never "answered in the terminal": its run is over (their waiters poll the store)
    await supersedeOpenIn(tx, changes, session, input.now, { runnerAsks: { message: runEndedWords(input.reason), decidedBy: null } });
    for (const turnId of await abandonRunningToolsOfSession(tx, { sid: session.sid, endedAt: input.now })) {
      changes.turn(session.namespace, (await getTurn(tx, turnId))!);
    }
  }
}

/**
 * Stores transport presence (kept apart from lifecycle). Broadcast only when what a viewer sees
 * changes — active or thinking — not for every heartbeat's time.
 */
export async function setPresence(tx: Tx, changes: ChangeSet, session: StoredSession, presence: StoredSession['presence']): Promise<void> {
  const visibleChange = presence.active !== session.presence.active || presence.thinking !== session.presence.thinking;
  await updatePresence(tx, { sid: session.sid, ...presence });
  session.presence = presence;
  if (visibleChange) changes.changed(session, 'presence');
}

/** Lifecycle events and writes are activity; an idle session with a live run wakes up. */
export async function noteActivity(tx: Tx, changes: ChangeSet, session: StoredSession, now: number): Promise<void> {
  // a write in this unit of work may have stamped the activity already
  if (session.lastActivityAt !== now) await touchActivity(tx, { sid: session.sid, now });
  session.lastActivityAt = now;
  if (session.lifecycle.state === 'idle' && session.lastRun?.status === 'running') {
    await setLifecycle(tx, changes, session, { state: 'running', reason: null, by: 'runner', now });
  }
}

export function isRunLive(session: StoredSession): boolean {
  return session.lastRun?.status === 'running';
}

/** Closes the session's open turn, if any; returns it closed. */
export async function closeOpenTurn(
  tx: Tx,
  changes: ChangeSet,
  session: StoredSession,
  input: { status: TurnStatus; response: string | null; now: number },
): Promise<TurnSummary | null> {
  if (session.currentTurnId === null) return null;
  const turnId = session.currentTurnId;
  const closed = await closeTurn(tx, { turnId, status: input.status, closedAt: input.now, response: input.response });
  await updateCurrentTurn(tx, { sid: session.sid, turnId: null, now: input.now });
  session.currentTurnId = null;
  changes.currentTurnMoved(session);
  if (!closed) return null;
  const turn = (await getTurn(tx, turnId))!;
  changes.turn(session.namespace, turn);
  return turn;
}

/**
 * Opens a new run; a run still live (its runner restarted without ending it) ends as interrupted.
 * `detached`: the runner holds no socket for the run's life (see runs.detached).
 */
export async function openRun(tx: Tx, changes: ChangeSet, session: StoredSession, input: { now: number; pid: number | null; detached: boolean; hubId: string }): Promise<string> {
  if (isRunLive(session)) await endLiveRun(tx, changes, session, { status: 'interrupted', reason: 'superseded_by_new_run', now: input.now });
  const runId = randomUUID();
  await insertRun(tx, { runId, sid: session.sid, now: input.now, pid: input.pid, detached: input.detached, hubId: input.detached ? null : input.hubId });
  await updateLastRun(tx, { sid: session.sid, runId, status: 'running', endedAt: null, reason: null, now: input.now });
  session.lastRun = { runId, status: 'running', endedAt: null, reason: null };
  changes.changed(session, 'lifecycle');
  return runId;
}

/**
 * Ends the live run, if any, closing its open turn (completed when the run succeeded, else aborted).
 * Returns false when no run was live.
 */
export async function endLiveRun(
  tx: Tx,
  changes: ChangeSet,
  session: StoredSession,
  input: { status: RunEndStatus; reason: string | null; now: number },
): Promise<boolean> {
  await closeOpenTurn(tx, changes, session, { status: input.status === 'success' ? 'completed' : 'aborted', response: null, now: input.now });
  const lastRun = session.lastRun;
  if (lastRun === null || lastRun.status !== 'running') return false;
  if (!await endRun(tx, { runId: lastRun.runId, status: input.status, endedAt: input.now, reason: input.reason }, { liveHere: true })) return false;
  await updateLastRun(tx, { sid: session.sid, runId: lastRun.runId, status: input.status, endedAt: input.now, reason: input.reason, now: input.now });
  session.lastRun = { runId: lastRun.runId, status: input.status, endedAt: input.now, reason: input.reason };
  changes.changed(session, 'lifecycle');
  return true;
}

/**
 * The hub ends a run whose runner is gone (lost past its grace, or a detached run gone silent): the
 * run is interrupted and the lifecycle ended by the hub; an archived session stays archived.
 */
export async function endAbandonedRun(tx: Tx, changes: ChangeSet, session: StoredSession, input: { reason: string; now: number }): Promise<void> {
  await endLiveRun(tx, changes, session, { status: 'interrupted', reason: input.reason, now: input.now });
  if (session.lifecycle.state !== 'archived') await setLifecycle(tx, changes, session, { state: 'ended', reason: input.reason, by: 'hub', now: input.now });
}

/** Archives the session; a live run ends first (as `status`, cancelled by default). */
export async function archiveSession(
  tx: Tx,
  changes: ChangeSet,
  session: StoredSession,
  input: { reason: string; by: Writer; status?: RunEndStatus; now: number },
): Promise<void> {
  await endLiveRun(tx, changes, session, { status: input.status ?? 'cancelled', reason: input.reason, now: input.now });
  await setLifecycle(tx, changes, session, { state: 'archived', reason: input.reason, by: input.by, now: input.now });
}
