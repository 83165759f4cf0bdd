import { stmt, type Db } from './db.js';

export type VersionedField = 'metadata' | 'agentState';

const SELECT = `SELECT version, value FROM applied_requests WHERE sid = @sid AND field = @field AND request_id = @requestId`;
const INSERT = `
  INSERT INTO applied_requests (sid, field, request_id, version, value, at) VALUES (@sid, @field, @requestId, @version, @value, @at)`;
export const PRUNE = `DELETE FROM applied_requests WHERE at < @olderThan`;

/** What an already applied `requestId` produced, so a retry answers the same and writes nothing. */
export function findAppliedRequest(
  db: Db,
  key: { sid: string; field: VersionedField; requestId: string },
): { version: number; value: unknown } | undefined {
  const row = stmt(db, SELECT).get(key) as { version: number; value: string } | undefined;
  return row && { version: row.version, value: JSON.parse(row.value) };
}

export function recordAppliedRequest(
  db: Db,
  input: { sid: string; field: VersionedField; requestId: string; version: number; value: unknown; at: number },
): void {
  stmt(db, INSERT).run({ ...input, value: JSON.stringify(input.value) });
}

export function pruneAppliedRequests(db: Db, input: { olderThan: number }): number {
  return stmt(db, PRUNE).run(input).changes;
}
