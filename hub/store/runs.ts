import type { RunEndStatus, RunStatus } from '../../shared/protocol/session.js';
import { stmt, type Db } from './db.js';

export interface StoredRun {
  runId: string;
  sid: string;
  startedAt: number;
  status: RunStatus;
  endedAt: number | null;
  reason: string | null;
  pid: number | null;
  disconnectedAt: number | null;
  resumeRetried: boolean;
  /** The runner holds no socket for the run's life (the hook bridge): no grace, ended when silent. */
  detached: boolean;
}

interface RunRow {
  run_id: string;
  sid: string;
  started_at: number;
  status: RunStatus;
  ended_at: number | null;
  reason: string | null;
  pid: number | null;
  disconnected_at: number | null;
  resume_retried: number;
  detached: number;
}

const INSERT = `
  INSERT INTO runs (run_id, sid, started_at, status, pid, detached) VALUES (@runId, @sid, @now, 'running', @pid, @detached)`;
const SELECT = `SELECT * FROM runs WHERE run_id = @runId`;
const END = `
  UPDATE runs SET status = @status, ended_at = @endedAt, reason = @reason, disconnected_at = NULL
  WHERE run_id = @runId AND status = 'running'`;
const SET_DISCONNECTED = `UPDATE runs SET disconnected_at = @at WHERE run_id = @runId AND status = 'running'`;
export const SELECT_LOST = `
  SELECT * FROM runs WHERE status = 'running' AND disconnected_at IS NOT NULL AND disconnected_at <= @before
  ORDER BY disconnected_at LIMIT @limit`;
const MARK_ALL_LIVE_DISCONNECTED = `UPDATE runs SET disconnected_at = @at WHERE status = 'running' AND detached = 0`;
/**
 * Live detached runs whose session has been silent since `before`: walks sessions_running_by_activity,
 * whose rows the sweep's idle step then moves out of that index, so nothing is read twice.
 */
export const SELECT_SILENT_DETACHED = `
  SELECT r.* FROM sessions s JOIN runs r ON r.run_id = s.last_run_id
  WHERE s.lifecycle_state = 'running' AND s.last_activity_at <= @before AND r.status = 'running' AND r.detached = 1
  ORDER BY s.last_activity_at LIMIT @limit`;
const MARK_RETRIED = `UPDATE runs SET resume_retried = 1 WHERE run_id = @runId AND resume_retried = 0`;

function toRun(row: RunRow): StoredRun {
  return {
    runId: row.run_id,
    sid: row.sid,
    startedAt: row.started_at,
    status: row.status,
    endedAt: row.ended_at,
    reason: row.reason,
    pid: row.pid,
    disconnectedAt: row.disconnected_at,
    resumeRetried: row.resume_retried === 1,
    detached: row.detached === 1,
  };
}

export function insertRun(db: Db, input: { runId: string; sid: string; now: number; pid: number | null; detached?: boolean }): void {
  stmt(db, INSERT).run({ ...input, detached: input.detached ? 1 : 0 });
}

export function getRun(db: Db, runId: string): StoredRun | undefined {
  const row = stmt(db, SELECT).get({ runId }) as RunRow | undefined;
  return row && toRun(row);
}

/** Ends a live run; false when it had already ended (so nothing ends twice). */
export function endRun(db: Db, input: { runId: string; status: RunEndStatus; endedAt: number; reason: string | null }): boolean {
  return stmt(db, END).run(input).changes > 0;
}

/** `at` null: a runner socket is bound to the run again. */
export function setRunDisconnected(db: Db, input: { runId: string; at: number | null }): void {
  stmt(db, SET_DISCONNECTED).run(input);
}

/** Live runs whose runner has been gone since `before` or earlier. */
export function listLostRuns(db: Db, input: { before: number; limit: number }): StoredRun[] {
  return (stmt(db, SELECT_LOST).all(input) as RunRow[]).map(toRun);
}

/** Live detached runs whose session has been silent since `before` or earlier. */
export function listSilentDetachedRuns(db: Db, input: { before: number; limit: number }): StoredRun[] {
  return (stmt(db, SELECT_SILENT_DETACHED).all(input) as RunRow[]).map(toRun);
}

/**
 * At boot no runner is connected yet: every live run starts its grace now, except detached runs,
 * which never had a socket to lose.
 */
export function markLiveRunsDisconnected(db: Db, input: { at: number }): number {
  return stmt(db, MARK_ALL_LIVE_DISCONNECTED).run(input).changes;
}

/** Claims the run's one resume retry; false when it was already used. */
export function claimResumeRetry(db: Db, runId: string): boolean {
  return stmt(db, MARK_RETRIED).run({ runId }).changes > 0;
}
