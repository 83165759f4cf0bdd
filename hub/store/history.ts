import type { HistoryEntry, Writer } from '../../shared/protocol/session.js';
import type { JsonObject } from '../../shared/protocol/json.js';
import type { Sql } from './sql.js';

const INSERT = `
  INSERT INTO metadata_history (sid, version, at, by, carried, cleared, dropped, metadata)
  VALUES (@sid, @version, @at, @by, @carried, @cleared, @dropped, @metadata)`;
const SELECT_FOR_SESSION = `SELECT * FROM metadata_history WHERE sid = @sid ORDER BY version`;
const SELECT_VERSION = `SELECT * FROM metadata_history WHERE sid = @sid AND version = @version`;

interface HistoryRow {
  version: number;
  at: number;
  by: Writer;
  carried: string;
  cleared: string;
  dropped: string;
  metadata: string;
}

function toEntry(row: HistoryRow): HistoryEntry {
  return {
    version: row.version,
    at: row.at,
    by: row.by,
    carried: JSON.parse(row.carried) as string[],
    cleared: JSON.parse(row.cleared) as string[],
    dropped: JSON.parse(row.dropped) as string[],
    metadata: JSON.parse(row.metadata) as JsonObject,
  };
}

/** `metadataJson`: the entry's metadata already serialized by the caller, used as is. */
export async function insertHistory(sql: Sql, input: { sid: string; metadataJson?: string } & HistoryEntry): Promise<void> {
  await sql.write(INSERT, {
    sid: input.sid,
    version: input.version,
    at: input.at,
    by: input.by,
    carried: JSON.stringify(input.carried),
    cleared: JSON.stringify(input.cleared),
    dropped: JSON.stringify(input.dropped),
    metadata: input.metadataJson ?? JSON.stringify(input.metadata),
  });
}

/** Every version of a session's metadata, oldest first. */
export async function listHistory(sql: Sql, sid: string): Promise<HistoryEntry[]> {
  return (await sql.all(SELECT_FOR_SESSION, { sid }) as HistoryRow[]).map(toEntry);
}

export async function getHistoryVersion(sql: Sql, input: { sid: string; version: number }): Promise<HistoryEntry | undefined> {
  const row = await sql.get(SELECT_VERSION, input) as HistoryRow | undefined;
  return row && toEntry(row);
}
