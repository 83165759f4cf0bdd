import type { JsonObject } from '../../shared/protocol/json.js';
import type { Writer } from '../../shared/protocol/session.js';
import { insertHistory } from './history.js';
import { metadataWritten, SET_METADATA_COLUMNS, searchColumnsOf, updateMetadata } from './sessions.js';
import type { RowsWrite, Sql } from './sql.js';

/**
 * PostgreSQL: the session's new version and its history row in one statement, so one round trip
 * while the cluster's write lock is held (SQLite runs the two statements; it has no round trips).
 */
export const STORE_VERSION_PG: RowsWrite = {
  one: `
  WITH updated AS (
    UPDATE sessions SET ${SET_METADATA_COLUMNS}
    WHERE sid = @sid
    RETURNING sid)
  INSERT INTO metadata_history (sid, version, at, by, carried, cleared, dropped, metadata)
  SELECT sid, @version, @now, CAST(@by AS TEXT), CAST(@carried AS TEXT), CAST(@cleared AS TEXT), CAST(@dropped AS TEXT), @metadata
  FROM updated`,
  // the same for the sessions of a batch's writes, in one statement (one row per session: merge by sid)
  many: `
  WITH r AS (
    SELECT * FROM unnest(CAST(@sid AS TEXT[]), CAST(@metadata AS TEXT[]), CAST(@version AS BIGINT[]), CAST(@now AS BIGINT[]),
      CAST(@activityAt AS BIGINT[]), CAST(@title AS TEXT[]), CAST(@cwd AS TEXT[]), CAST(@project AS TEXT[]),
      CAST(@by AS TEXT[]), CAST(@carried AS TEXT[]), CAST(@cleared AS TEXT[]), CAST(@dropped AS TEXT[]))
      AS r(sid, metadata, version, at, activity_at, title, cwd, project, by, carried, cleared, dropped)),
  updated AS (
    UPDATE sessions s SET metadata = r.metadata, metadata_version = r.version, updated_at = r.at, last_activity_at = r.activity_at,
      title = r.title, cwd = r.cwd, project = r.project
    -- the ANY lets the planner reach the rows by primary key; joined on r alone, it scanned every session
    FROM r WHERE s.sid = ANY (CAST(@sid AS TEXT[])) AND s.sid = r.sid
    RETURNING s.sid)
  INSERT INTO metadata_history (sid, version, at, by, carried, cleared, dropped, metadata)
  SELECT r.sid, r.version, r.at, r.by, r.carried, r.cleared, r.dropped, r.metadata
  FROM r JOIN updated u ON u.sid = r.sid`,
  merge: { key: 'sid' },
};

/** A session's next metadata version: the session row and its history row, written together. */
export async function storeMetadataVersion(
  sql: Sql,
  input: {
    sid: string;
    metadata: JsonObject;
    /** `metadata` serialized once by the caller. */
    metadataJson: string;
    version: number;
    now: number;
    /** False for hub-made versions: they leave the session's last activity as it was. */
    countsAsActivity: boolean;
    previousActivityAt: number;
    by: Writer;
    carried: readonly string[];
    cleared: readonly string[];
    dropped: readonly string[];
  },
): Promise<void> {
  const { sid, metadata, metadataJson, version, now, by, carried, cleared, dropped } = input;
  if (sql.dialect === 'postgres') {
    const activityAt = input.countsAsActivity ? now : input.previousActivityAt;
    await sql.write(STORE_VERSION_PG, {
      sid,
      metadata: metadataJson,
      version,
      now,
      activityAt,
      by,
      carried: JSON.stringify(carried),
      cleared: JSON.stringify(cleared),
      dropped: JSON.stringify(dropped),
      ...searchColumnsOf(metadata),
    });
    metadataWritten(sql, { sid, metadata, version, now, activityAt });
    return;
  }
  await updateMetadata(sql, { sid, metadata, metadataJson, version, now, countsAsActivity: input.countsAsActivity, previousActivityAt: input.previousActivityAt });
  await insertHistory(sql, { sid, version, at: now, by, carried: [...carried], cleared: [...cleared], dropped: [...dropped], metadata, metadataJson });
}
