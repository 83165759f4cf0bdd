import type { RunEndStatus, RunStatus } from '../../shared/protocol/session.js';
import type { Sql } from './sql.js';
import { keyList } from './key-lists.js';
import { listDeadHubs } from './hubs.js';

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
  /** When the agent's keeper (hook bridge) last said the agent lives; null: no keeper reported for this run. */
  agentAliveAt: number | null;
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
  agent_alive_at: number | null;
}

const INSERT = `
  INSERT INTO runs (run_id, sid, started_at, status, pid, detached, hub_id) VALUES (@runId, @sid, @now, 'running', @pid, @detached, @hubId)`;
const SELECT = `SELECT * FROM runs WHERE run_id = @runId`;
const END = `
  UPDATE runs SET status = @status, ended_at = @endedAt, reason = @reason, disconnected_at = NULL
  WHERE run_id = @runId AND status = 'running'`;
const SET_DISCONNECTED = `UPDATE runs SET disconnected_at = @at, hub_id = @hubId WHERE run_id = @runId AND status = 'running'`;
export const SELECT_LOST = `
  SELECT * FROM runs WHERE status = 'running' AND disconnected_at IS NOT NULL AND disconnected_at <= @before
  ORDER BY disconnected_at LIMIT @limit`;
const MARK_ALL_LIVE_DISCONNECTED = `UPDATE runs SET disconnected_at = @at, hub_id = NULL WHERE status = 'running' AND detached = 0`;
// walks runs_live_by_hub: only the runs of that one process, never every live run
export const MARK_RUNS_OF_HUB_DISCONNECTED = `
  UPDATE runs SET disconnected_at = @at, hub_id = NULL
  WHERE hub_id = @hubId AND status = 'running' AND disconnected_at IS NULL AND detached = 0`;
/**
 * Live detached runs whose session has been silent since `before`: walks sessions_running_by_activity,
 * whose rows the sweep's idle step then moves out of that index, so nothing is read twice.
 */
export const SELECT_SILENT_DETACHED = `
  SELECT r.* FROM sessions s JOIN runs r ON r.run_id = s.last_run_id
  WHERE s.lifecycle_state = 'running' AND s.last_activity_at <= @before AND r.status = 'running' AND r.detached = 1
    AND r.agent_alive_at IS NULL
  ORDER BY s.last_activity_at LIMIT @limit`;
/** Live runs whose agent's keeper last reported at `before` or earlier: walks runs_live_by_agent_alive. */
export const SELECT_AGENT_SILENT = `
  SELECT * FROM runs WHERE status = 'running' AND agent_alive_at IS NOT NULL AND agent_alive_at <= @before
  ORDER BY agent_alive_at LIMIT @limit`;
const NOTE_AGENT_ALIVE = `UPDATE runs SET agent_alive_at = @at WHERE run_id = @runId AND status = 'running'`;
const CLAIM = `
  UPDATE runs SET disconnected_at = NULL, hub_id = @hubId
  WHERE run_id = @runId AND status = 'running' AND detached = 0
    AND (disconnected_at IS NOT NULL OR hub_id IS NULL OR hub_id <> @hubId)`;
// only a run this process still holds, connected: a run whose grace another process started
// meanwhile (its runner left too) must not come back to life as held by a process with no runner
const HAND_OVER = `
  UPDATE runs SET hub_id = @to
  WHERE run_id = @runId AND status = 'running' AND hub_id = @from AND disconnected_at IS NULL`;
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
    agentAliveAt: row.agent_alive_at,
  };
}

/** `hubId`: the hub process holding the run's runner socket (null for a detached run). */
export async function insertRun(
  sql: Sql,
  input: { runId: string; sid: string; now: number; pid: number | null; detached?: boolean; hubId: string | null },
): Promise<void> {
  // a new run id: nothing to learn from the row count, so the insert waits for the batch's next round trip
  await sql.write(INSERT, { ...input, detached: input.detached ? 1 : 0 });
  detachedCacheOf(sql)?.set(detachedKey(input.runId), input.detached === true);
}

/*
 * Whether a run is detached never changes after its insert: a PostgreSQL batch may learn it for its
 * sessions' last runs at once (prefetchRunsDetached) and keep it for the transaction.
 */
const detachedKey = (runId: string) => `run-detached:${runId}`;
const detachedCacheOf = (sql: Sql) => (sql.dialect === 'postgres' ? sql.rowCache : undefined);
const LAST_RUNS_DETACHED = `
  SELECT r.run_id, r.detached FROM jsonb_array_elements_text(CAST(@sids AS jsonb)) AS k(sid)
    JOIN sessions s ON s.sid = k.sid JOIN runs r ON r.run_id = s.last_run_id`;

/** Whether these sessions' last runs are detached, in one statement (PostgreSQL). */
export async function prefetchRunsDetached(sql: Sql, sids: readonly string[]): Promise<void> {
  const cache = detachedCacheOf(sql);
  if (!cache || sids.length === 0) return;
  for (const row of await sql.all<{ run_id: string; detached: number }>(LAST_RUNS_DETACHED, { sids: keyList(sids) })) cache.set(detachedKey(row.run_id), row.detached === 1);
}

/** Whether a run is detached (a hook bridge's: no socket); undefined for no such run. */
export async function isRunDetached(sql: Sql, runId: string): Promise<boolean | undefined> {
  const known = detachedCacheOf(sql)?.get(detachedKey(runId)) as boolean | undefined;
  if (known !== undefined) return known;
  return (await getRun(sql, runId))?.detached;
}

export async function getRun(sql: Sql, runId: string): Promise<StoredRun | undefined> {
  const row = await sql.get(SELECT, { runId }) as RunRow | undefined;
  return row && toRun(row);
}

/**
 * Ends a live run; false when it had already ended (so nothing ends twice). `liveHere`: the caller
 * read the run as live in this PostgreSQL transaction (its session's last run, which every run
 * write keeps equal to the run's row, under the tenant's lock): then it is ended without waiting
 * for the row count, in the batch's next round trip.
 */
export async function endRun(sql: Sql, input: { runId: string; status: RunEndStatus; endedAt: number; reason: string | null }, options: { liveHere?: boolean } = {}): Promise<boolean> {
  if (options.liveHere && sql.dialect === 'postgres') {
    await sql.write(END, input);
    return true;
  }
  return (await sql.run(END, input)).changes > 0;
}

/** `at` null: a runner socket on hub process `hubId` is bound to the run again; else its last socket left at `at`. */
export async function setRunDisconnected(sql: Sql, input: { runId: string; at: number | null; hubId: string | null }): Promise<void> {
  await sql.write(SET_DISCONNECTED, { runId: input.runId, at: input.at, hubId: input.at === null ? input.hubId : null });
}

/** Live runs whose runner has been gone since `before` or earlier. */
export async function listLostRuns(sql: Sql, input: { before: number; limit: number }): Promise<StoredRun[]> {
  return (await sql.all(SELECT_LOST, input) as RunRow[]).map(toRun);
}

/** Live detached runs whose session has been silent since `before` or earlier. */
export async function listSilentDetachedRuns(sql: Sql, input: { before: number; limit: number }): Promise<StoredRun[]> {
  return (await sql.all(SELECT_SILENT_DETACHED, input) as RunRow[]).map(toRun);
}

/** Live runs whose agent's keeper has not reported since `before` (its agent, and the keeper, are gone). */
export async function listAgentSilentRuns(sql: Sql, input: { before: number; limit: number }): Promise<StoredRun[]> {
  return (await sql.all(SELECT_AGENT_SILENT, input) as RunRow[]).map(toRun);
}

/** The agent of a live run said it lives at `at`: from now on its keeper's silence, not the idle window, ends the run. */
export async function noteAgentAlive(sql: Sql, input: { runId: string; at: number }): Promise<void> {
  await sql.write(NOTE_AGENT_ALIVE, input);
}

/**
 * At a start with no other hub process alive (always with SQLite) no runner is connected yet:
 * every live run starts its grace now, except detached runs, which never had a socket to lose.
 */
export async function markLiveRunsDisconnected(sql: Sql, input: { at: number }): Promise<number> {
  return (await sql.run(MARK_ALL_LIVE_DISCONNECTED, input)).changes;
}

/**
 * Live runs held by a hub process that stopped heartbeating before `aliveSince` (killed, or an
 * earlier start of a single SQLite hub) lost their runner socket with it: their grace starts at
 * `at`. Detached runs never had a socket to lose; the asking hub's own runs are never touched.
 * A process leaves the hubs table only after its runs were marked (the sweep marks, then prunes;
 * a clean stop marks its own, then leaves), so the table names every process that may hold runs.
 */
export async function markRunsOfDeadHubsDisconnected(sql: Sql, input: { selfHubId: string; aliveSince: number; at: number }): Promise<number> {
  let marked = 0;
  for (const hubId of await listDeadHubs(sql, input)) marked += await markRunsOfHubDisconnected(sql, { hubId, at: input.at });
  return marked;
}

/** Every live connected run held by hub process `hubId` loses its runner socket at `at` (its grace starts). */
export async function markRunsOfHubDisconnected(sql: Sql, input: { hubId: string; at: number }): Promise<number> {
  return (await sql.run(MARK_RUNS_OF_HUB_DISCONNECTED, input)).changes;
}

/**
 * A runner socket bound to the run on hub process `hubId` showed it is alive: the run is connected
 * and held by that process (a no-op, writing nothing, when it already is).
 */
export async function claimRun(sql: Sql, input: { runId: string; hubId: string }): Promise<boolean> {
  return (await sql.run(CLAIM, input)).changes > 0;
}

/**
 * This process (`from`) lost its last runner socket of the run while process `to` still holds one:
 * the run moves to `to`. A no-op (false) unless `from` still holds the run and it is connected.
 */
export async function handOverRun(sql: Sql, input: { runId: string; from: string; to: string }): Promise<boolean> {
  return (await sql.run(HAND_OVER, input)).changes > 0;
}

/** Claims the run's one resume retry; false when it was already used. */
export async function claimResumeRetry(sql: Sql, runId: string): Promise<boolean> {
  return (await sql.run(MARK_RETRIED, { runId })).changes > 0;
}
