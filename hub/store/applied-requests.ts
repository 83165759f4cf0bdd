import type { Sql } from './sql.js';

export type VersionedField = 'metadata' | 'agentState';

const SELECT = `SELECT version, value FROM applied_requests WHERE sid = @sid AND field = @field AND request_id = @requestId`;
const INSERT = `
  INSERT INTO applied_requests (sid, field, request_id, version, value, at) VALUES (@sid, @field, @requestId, @version, @value, @at)`;
export const PRUNE = `DELETE FROM applied_requests WHERE at < @olderThan`;

/** What an already applied `requestId` produced, so a retry answers the same and writes nothing. */
export async function findAppliedRequest(
  sql: Sql,
  key: { sid: string; field: VersionedField; requestId: string },
): Promise<{ version: number; value: unknown } | undefined> {
  const row = await sql.get(SELECT, key) as { version: number; value: string } | undefined;
  return row && { version: row.version, value: JSON.parse(row.value) };
}

export async function recordAppliedRequest(
  sql: Sql,
  input: { sid: string; field: VersionedField; requestId: string; version: number; value: unknown; at: number },
): Promise<void> {
  await sql.run(INSERT, { ...input, value: JSON.stringify(input.value) });
}

export async function pruneAppliedRequests(sql: Sql, input: { olderThan: number }): Promise<number> {
  return (await sql.run(PRUNE, input)).changes;
}
