import type { Sql } from './sql.js';

/** Hub processes sharing the database, and when each last said it was alive. */
const HEARTBEAT = `
  INSERT INTO hubs (hub_id, started_at, heartbeat_at) VALUES (@hubId, @now, @now)
  ON CONFLICT (hub_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`;
const DELETE = `DELETE FROM hubs WHERE hub_id = @hubId`;
const PRUNE = `DELETE FROM hubs WHERE heartbeat_at < @before`;
const COUNT_ALIVE = `SELECT COUNT(*) AS n FROM hubs WHERE heartbeat_at >= @aliveSince`;
// a scan, of one row per hub process
const SELECT_DEAD = `SELECT hub_id AS "hubId" FROM hubs WHERE heartbeat_at < @aliveSince AND hub_id <> @selfHubId`;

export async function recordHubHeartbeat(sql: Sql, input: { hubId: string; now: number }): Promise<void> {
  await sql.run(HEARTBEAT, input);
}

/** A hub that stops cleanly leaves; its runs' sockets were closed (and marked) first. */
export async function removeHub(sql: Sql, hubId: string): Promise<void> {
  await sql.run(DELETE, { hubId });
}

/** Forgets processes silent since before `before` (their runs were marked by then). */
export async function pruneDeadHubs(sql: Sql, input: { before: number }): Promise<number> {
  return (await sql.run(PRUNE, input)).changes;
}

export async function countAliveHubs(sql: Sql, input: { aliveSince: number }): Promise<number> {
  return (await sql.get<{ n: number }>(COUNT_ALIVE, input))?.n ?? 0;
}

/** The other hub processes silent since before `aliveSince`: presumed dead (killed). */
export async function listDeadHubs(sql: Sql, input: { selfHubId: string; aliveSince: number }): Promise<string[]> {
  return (await sql.all<{ hubId: string }>(SELECT_DEAD, input)).map((row) => row.hubId);
}
