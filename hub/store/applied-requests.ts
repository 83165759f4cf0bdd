import type { RowsWrite, Sql } from './sql.js';

export type VersionedField = 'metadata' | 'agentState';

const SELECT = `SELECT version, value FROM applied_requests WHERE sid = @sid AND field = @field AND request_id = @requestId`;
const INSERT: RowsWrite = {
  one: `
  INSERT INTO applied_requests (sid, field, request_id, version, value, at) VALUES (@sid, @field, @requestId, @version, @value, @at)`,
  // a batch's requests in one statement (PostgreSQL): a recorded request is never changed in its transaction
  many: `
  INSERT INTO applied_requests (sid, field, request_id, version, value, at)
  SELECT * FROM unnest(CAST(@sid AS TEXT[]), CAST(@field AS TEXT[]), CAST(@requestId AS TEXT[]), CAST(@version AS BIGINT[]),
    CAST(@value AS TEXT[]), CAST(@at AS BIGINT[]))`,
  merge: 'append',
};
export const SELECT_MANY = {
  sqlite: `
  SELECT a.sid, a.field, a.request_id AS "requestId", a.version, a.value
  FROM applied_requests a JOIN json_each(@keys) k
    ON a.sid = json_extract(k.value, '$.sid') AND a.field = json_extract(k.value, '$.field') AND a.request_id = json_extract(k.value, '$.requestId')`,
  // A plain join is planned once per connection (a prepared statement's generic plan), from the
  // table's statistics of that moment: on a new database that was a hash join over a sequential scan
  // of the whole table, kept while the table grew (1.4 ms a batch at 11,000 rows, and rising).
  // LATERAL … LIMIT 1 cannot be flattened into a join, so each key is one primary-key lookup.
  postgres: `
  SELECT a.sid, a.field, a.request_id AS "requestId", a.version, a.value
  FROM jsonb_to_recordset(CAST(@keys AS jsonb)) AS k(sid TEXT, field TEXT, "requestId" TEXT),
    LATERAL (SELECT * FROM applied_requests WHERE applied_requests.sid = k.sid AND applied_requests.field = k.field
      AND applied_requests.request_id = k."requestId" LIMIT 1) a`,
};
export const ASSERT_NOT_APPLIED = `
  SELECT hub_expect(NOT EXISTS (
    SELECT 1 FROM jsonb_to_recordset(CAST(@keys AS jsonb)) AS k(sid TEXT, field TEXT, "requestId" TEXT),
      LATERAL (SELECT 1 FROM applied_requests WHERE applied_requests.sid = k.sid AND applied_requests.field = k.field
        AND applied_requests.request_id = k."requestId" LIMIT 1) a),
    'a request id taken as new was applied before')`;
export const PRUNE = `DELETE FROM applied_requests WHERE at < @olderThan`;

type AppliedKey = { sid: string; field: VersionedField; requestId: string };
type Applied = { version: number; value: unknown };

/** In a transaction's rowCache: what a request produced, or null for "not applied" (prefetchAppliedRequests). */
const cacheKey = (key: AppliedKey) => `applied:${key.sid}:${key.field}:${key.requestId}`;

/** What an already applied `requestId` produced, so a retry answers the same and writes nothing. */
export async function findAppliedRequest(sql: Sql, key: AppliedKey): Promise<Applied | undefined> {
  const hit = sql.rowCache?.get(cacheKey(key)) as Applied | null | undefined;
  if (hit !== undefined) return hit ?? undefined;
  const row = await sql.get(SELECT, key) as { version: number; value: string } | undefined;
  return row && { version: row.version, value: JSON.parse(row.value) };
}

/**
 * Reads, in one statement, whether each request of a batch was applied already, into the
 * transaction's rowCache (found or not), so findAppliedRequest costs no round trip. Valid while the
 * transaction's write lock is held: only a write of the same namespace records a request. With
 * carried rows (sql.ts) a request id is taken as new, unread, and ASSERT_NOT_APPLIED fails the
 * transaction if it was applied (a retry: it then runs again on rows read afresh).
 */
export async function prefetchAppliedRequests(sql: Sql, all: readonly AppliedKey[]): Promise<void> {
  const cache = sql.rowCache;
  const keys = all.filter((key) => !cache?.has(cacheKey(key)));
  if (!cache || keys.length === 0) return;
  if (sql.carried) {
    for (const key of keys) cache.set(cacheKey(key), null);
    return sql.write(ASSERT_NOT_APPLIED, { keys: JSON.stringify(keys) });
  }
  const rows = await sql.all(SELECT_MANY, { keys: JSON.stringify(keys) }) as (AppliedKey & { version: number; value: string })[];
  for (const key of keys) cache.set(cacheKey(key), null);
  for (const row of rows) cache.set(cacheKey(row), { version: row.version, value: JSON.parse(row.value) });
}

export async function recordAppliedRequest(
  sql: Sql,
  input: { sid: string; field: VersionedField; requestId: string; version: number; value: unknown; at: number },
): Promise<void> {
  await sql.write(INSERT, { ...input, value: JSON.stringify(input.value) });
  sql.rowCache?.set(cacheKey(input), { version: input.version, value: input.value });
}

export async function pruneAppliedRequests(sql: Sql, input: { olderThan: number }): Promise<number> {
  return (await sql.run(PRUNE, input)).changes;
}
