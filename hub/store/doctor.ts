/**
 * Read-only queries of the offline CLI: what `session-hub doctor` reports (each bounded by `limit`)
 * and the session listing `repair --all` pages through. Safe beside a running hub (WAL).
 */
import type { Sql } from './sql.js';

/**
 * Ended or archived sessions of one flavor whose token key is absent now although some history
 * version had it. The key goes into a JSON path, so callers pass registry keys only.
 */
const missingTokens = (has: (column: string) => string) => `
  SELECT s.sid, s.namespace, s.flavor, s.lifecycle_state AS state, s.lifecycle_reason AS reason, s.metadata_version AS version,
    (SELECT h.version FROM metadata_history h
       WHERE h.sid = s.sid AND ${has('h.metadata')} ORDER BY h.version DESC LIMIT 1) AS "lastVersionWithToken"
  FROM sessions s
  WHERE s.flavor = @flavor AND s.lifecycle_state IN ('ended', 'archived') AND NOT ${has('s.metadata')}
    AND EXISTS (SELECT 1 FROM metadata_history h WHERE h.sid = s.sid AND ${has('h.metadata')})
  ORDER BY s.updated_at DESC LIMIT @limit`;
// "has the key with a non-null value", as json_extract reads a JSON null as SQL NULL. PostgreSQL's
// JSON functions refuse a whole document holding the escape \u0000 (a string of a session's metadata
// may): it is replaced first by \ufffd, which changes no value's type or presence
const MISSING_TOKENS = {
  sqlite: missingTokens((column) => `json_extract(${column}, @path) IS NOT NULL`),
  postgres: missingTokens((column) => `COALESCE(jsonb_typeof(replace(${column}, '\\u0000', '\\ufffd')::jsonb -> @key) <> 'null', FALSE)`),
};

/** Live runs whose runner is gone past the grace, or that have been live with no session activity for very long. */
const STUCK_RUNS = `
  SELECT r.run_id AS "runId", r.sid, s.namespace, s.flavor, r.started_at AS "startedAt", r.disconnected_at AS "disconnectedAt",
    s.last_activity_at AS "lastActivityAt"
  FROM runs r JOIN sessions s ON s.sid = r.sid
  WHERE r.status = 'running'
    AND ((r.disconnected_at IS NOT NULL AND r.disconnected_at <= @lostBefore) OR s.last_activity_at <= @silentBefore)
  ORDER BY r.started_at LIMIT @limit`;

// what the sweep would close (hub/store/turns.ts, spec 9): quiet past the turn timeout, and past the
// tool timeout too when a tool of the turn is still running
const OLD_OPEN_TURNS = `
  SELECT t.turn_id AS "turnId", t.sid, s.namespace, t.opened_at AS "openedAt", t.last_activity_at AS "lastActivityAt"
  FROM turns t JOIN sessions s ON s.sid = t.sid
  WHERE t.status = 'open' AND t.last_activity_at <= @before
    AND (t.last_activity_at <= @toolBefore OR NOT EXISTS (SELECT 1 FROM activities a WHERE a.turn_id = t.turn_id AND a.status = 'running'))
  ORDER BY t.last_activity_at LIMIT @limit`;

// turns of hook sessions the sweep closed as timeout that no Stop ever reached (a stop that comes
// later lands on its turn and changes the status), newest first. A socket runner's lost turn is its
// run's story (stuck or interrupted runs), not a lost hook event
const LOST_STOPS = `
  SELECT t.turn_id AS "turnId", t.sid, s.namespace, s.flavor, s.tag, substr(t.prompt, 1, 80) AS prompt,
    t.opened_at AS "openedAt", t.closed_at AS "closedAt"
  FROM turns t JOIN sessions s ON s.sid = t.sid
  JOIN hook_sessions h ON h.namespace = s.namespace AND h.tag = s.tag
  WHERE t.status = 'timeout' AND t.closed_at >= @since
  ORDER BY t.closed_at DESC LIMIT @limit`;

// sessions whose agent never said it ended: the hub ended their detached (hook) run after silence
const UNENDED_SESSIONS = `
  SELECT s.sid, s.namespace, s.flavor, s.tag, s.lifecycle_since AS "endedAt", h.last_at AS "lastEventAt"
  FROM sessions s LEFT JOIN hook_sessions h ON h.namespace = s.namespace AND h.tag = s.tag
  WHERE s.lifecycle_state = 'ended' AND s.lifecycle_reason = 'runner_silent' AND s.lifecycle_by = 'hub'
    AND s.lifecycle_since >= @since
  ORDER BY s.lifecycle_since DESC LIMIT @limit`;

const ALL_SIDS_AFTER = `SELECT sid, namespace FROM sessions WHERE sid > @after ORDER BY sid LIMIT @limit`;
const COUNT_SESSIONS = `SELECT COUNT(*) AS n FROM sessions`;

export interface MissingTokenFinding {
  sid: string;
  namespace: string;
  flavor: string;
  tokenKey: string;
  state: string;
  reason: string | null;
  version: number;
  lastVersionWithToken: number;
}

export interface StuckRunFinding {
  runId: string;
  sid: string;
  namespace: string;
  flavor: string;
  startedAt: number;
  disconnectedAt: number | null;
  lastActivityAt: number;
}

export interface OpenTurnFinding {
  turnId: string;
  sid: string;
  namespace: string;
  openedAt: number;
  lastActivityAt: number;
}

/** A turn the sweep closed as `timeout` and whose Stop never reached the hub. */
export interface LostStopFinding {
  turnId: string;
  sid: string;
  namespace: string;
  flavor: string;
  tag: string;
  /** the prompt's first 80 characters; null for a turn without one */
  prompt: string | null;
  openedAt: number;
  closedAt: number;
}

/** A hook session the hub ended after silence: its SessionEnd never reached the hub. */
export interface UnendedSessionFinding {
  sid: string;
  namespace: string;
  flavor: string;
  tag: string;
  endedAt: number;
  /** the agent's time of its last hook event the hub applied; null when none is recorded */
  lastEventAt: number | null;
}

/** `$."key"`: a JSON path for one top-level key. */
function jsonPath(key: string): string {
  return `$."${key.replaceAll('"', '\\"')}"`;
}

export async function findMissingTokens(sql: Sql, input: { flavor: string; tokenKey: string; limit: number }): Promise<MissingTokenFinding[]> {
  const rows = await sql.all(MISSING_TOKENS, { flavor: input.flavor, path: jsonPath(input.tokenKey), key: input.tokenKey, limit: input.limit }) as Omit<
    MissingTokenFinding,
    'tokenKey'
  >[];
  return rows.map((row) => ({ ...row, tokenKey: input.tokenKey }));
}

export async function findStuckRuns(sql: Sql, input: { lostBefore: number; silentBefore: number; limit: number }): Promise<StuckRunFinding[]> {
  return await sql.all(STUCK_RUNS, input) as StuckRunFinding[];
}

export async function findOldOpenTurns(sql: Sql, input: { before: number; toolBefore: number; limit: number }): Promise<OpenTurnFinding[]> {
  return await sql.all(OLD_OPEN_TURNS, input) as OpenTurnFinding[];
}

export async function findLostStops(sql: Sql, input: { since: number; limit: number }): Promise<LostStopFinding[]> {
  return await sql.all(LOST_STOPS, input) as LostStopFinding[];
}

export async function findUnendedSessions(sql: Sql, input: { since: number; limit: number }): Promise<UnendedSessionFinding[]> {
  return await sql.all(UNENDED_SESSIONS, input) as UnendedSessionFinding[];
}

/** Every session id, in pages ordered by sid (for `repair --all`). */
export async function listSessionIdsAfter(sql: Sql, input: { after: string; limit: number }): Promise<{ sid: string; namespace: string }[]> {
  return await sql.all(ALL_SIDS_AFTER, input) as { sid: string; namespace: string }[];
}

export async function countSessions(sql: Sql): Promise<number> {
  return (await sql.get(COUNT_SESSIONS) as { n: number }).n;
}
