/**
 * What the hub itself knows of a session's runs on machines (docs/machines.md, "What runs"): where
 * and in which mode a person last started or continued it (its origin: a Continue goes by this,
 * never by metadata that runners and hooks write), and the one spawn in flight per session (its
 * claim: of concurrent Continues, on any hub process, one sends a spawn).
 */
import type { Sql } from './sql.js';

export interface SessionOrigin {
  namespace: string;
  sid: string;
  machineId: string;
  path: string;
  /** The mode the person asked for; null: none (the agent's own default). */
  permissionMode: string | null;
  byToken: string;
  at: number;
}

const UPSERT_ORIGIN = `
  INSERT INTO machine_session_origins (namespace, sid, machine_id, path, permission_mode, by_token, at)
  VALUES (@namespace, @sid, @machineId, @path, @permissionMode, @byToken, @at)
  ON CONFLICT (namespace, sid) DO UPDATE SET machine_id = @machineId, path = @path, permission_mode = @permissionMode, by_token = @byToken, at = @at`;
const SELECT_ORIGIN = `
  SELECT machine_id AS "machineId", path, permission_mode AS "permissionMode", by_token AS "byToken", at
  FROM machine_session_origins WHERE namespace = @namespace AND sid = @sid`;

/** A person's start or continue of the session was acknowledged by the runner: this is where and how it runs. */
export async function recordSessionOrigin(sql: Sql, origin: SessionOrigin): Promise<void> {
  await sql.run(UPSERT_ORIGIN, origin);
}

export async function getSessionOrigin(sql: Sql, key: { namespace: string; sid: string }): Promise<SessionOrigin | undefined> {
  const row = await sql.get<Omit<SessionOrigin, 'namespace' | 'sid' | 'at'> & { at: number | string }>(SELECT_ORIGIN, key);
  return row && { ...key, ...row, at: Number(row.at) };
}

/**
 * One statement, so it is atomic on either engine: inserted when the session has no claim, or
 * taking over one whose holder is past its expiry (a hub process that died mid-spawn); a live claim
 * is left as it is (no row changed).
 */
const CLAIM = `
  INSERT INTO session_run_claims (namespace, sid, request_id, expires_at) VALUES (@namespace, @sid, @requestId, @expiresAt)
  ON CONFLICT (namespace, sid) DO UPDATE SET request_id = @requestId, expires_at = @expiresAt
  WHERE session_run_claims.expires_at <= @now`;
const RELEASE = `DELETE FROM session_run_claims WHERE namespace = @namespace AND sid = @sid AND request_id = @requestId`;

/** True when this request now holds the session's one spawn in flight; false when another live request does. */
export async function claimSessionRun(sql: Sql, claim: { namespace: string; sid: string; requestId: string; now: number; expiresAt: number }): Promise<boolean> {
  return (await sql.run(CLAIM, claim)).changes === 1;
}

/** The spawn was answered (its run is live, or it failed): the claim goes; only its own holder's. */
export async function releaseSessionRun(sql: Sql, claim: { namespace: string; sid: string; requestId: string }): Promise<void> {
  await sql.run(RELEASE, claim);
}
