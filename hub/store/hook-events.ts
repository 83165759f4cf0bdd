/**
 * What the hook route remembers: per agent session (namespace, tag) the turn counter and the time
 * and seq of the last applied event, and the ids of applied events (a re-sent one changes nothing).
 *
 * On PostgreSQL a batch reads both for all its hook events at once (prefetchHookRows, from
 * batch-reads.ts) into the transaction's rowCache, absent rows included, and the writes keep those
 * cached rows current and are deferred to the batch's next round trip: a hook event reads nothing
 * of these tables on its own while the lock is held (issue 31).
 */
import type { RowsWrite, Sql } from './sql.js';
import { keyList } from './key-lists.js';

export interface HookSessionRow {
  turnsEnded: number;
  lastAt: number;
  lastSeq: number;
}

const SELECT_SESSION = `SELECT turns_ended, last_at, last_seq FROM hook_sessions WHERE namespace = @namespace AND tag = @tag`;
// a batch's rows in one statement each (sql.ts, RowsWrite); an agent session written twice keeps its last row
const UPSERT_SESSION: RowsWrite = {
  one: `
  INSERT INTO hook_sessions (namespace, tag, turns_ended, last_at, last_seq) VALUES (@namespace, @tag, @turnsEnded, @lastAt, @lastSeq)
  ON CONFLICT (namespace, tag) DO UPDATE SET turns_ended = @turnsEnded, last_at = @lastAt, last_seq = @lastSeq`,
  many: `
  INSERT INTO hook_sessions (namespace, tag, turns_ended, last_at, last_seq)
  SELECT DISTINCT ON (namespace, tag) namespace, tag, turns_ended, last_at, last_seq
  FROM unnest(CAST(@namespace AS TEXT[]), CAST(@tag AS TEXT[]), CAST(@turnsEnded AS INTEGER[]), CAST(@lastAt AS BIGINT[]), CAST(@lastSeq AS BIGINT[]))
    WITH ORDINALITY AS u(namespace, tag, turns_ended, last_at, last_seq, n)
  ORDER BY namespace, tag, n DESC
  ON CONFLICT (namespace, tag) DO UPDATE SET turns_ended = EXCLUDED.turns_ended, last_at = EXCLUDED.last_at, last_seq = EXCLUDED.last_seq`,
  merge: { touches: ['hook_sessions'] },
};
const SELECT_EVENT = `SELECT outcome FROM hook_events WHERE namespace = @namespace AND event_id = @eventId`;
// an applied id is never changed in its transaction (a second event with it finds it cached)
const INSERT_EVENT: RowsWrite = {
  one: `INSERT INTO hook_events (namespace, event_id, outcome, applied_at) VALUES (@namespace, @eventId, @outcome, @at)`,
  many: `
  INSERT INTO hook_events (namespace, event_id, outcome, applied_at)
  SELECT * FROM unnest(CAST(@namespace AS TEXT[]), CAST(@eventId AS TEXT[]), CAST(@outcome AS TEXT[]), CAST(@at AS BIGINT[]))`,
  merge: 'append',
};
export const PRUNE = `DELETE FROM hook_events WHERE applied_at < @olderThan`;
// One primary-key probe per key (a LATERAL lookup), whatever plan the connection cached: planned as
// `event_id = ANY (…)` on a near-empty table, the generic plan matched the namespace in the index and
// filtered every event of it, one tenant's whole table (docs/scale-out.md, "Plans that stay key lookups").
export const ASSERT_NOT_APPLIED = `
  SELECT hub_expect(NOT EXISTS (
    SELECT 1 FROM jsonb_array_elements_text(CAST(@eventIds AS jsonb)) AS k(event_id),
      LATERAL (SELECT 1 FROM hook_events WHERE namespace = @namespace AND hook_events.event_id = k.event_id LIMIT 1) e),
    'a hook event id taken as new was applied before')`;
export const SELECT_MANY_SESSIONS = `
  SELECT h.* FROM jsonb_array_elements_text(CAST(@tags AS jsonb)) AS k(tag),
    LATERAL (SELECT tag, turns_ended, last_at, last_seq FROM hook_sessions WHERE namespace = @namespace AND hook_sessions.tag = k.tag LIMIT 1) h`;
export const SELECT_MANY_EVENTS = `
  SELECT e.* FROM jsonb_array_elements_text(CAST(@eventIds AS jsonb)) AS k(event_id),
    LATERAL (SELECT event_id, outcome FROM hook_events WHERE namespace = @namespace AND hook_events.event_id = k.event_id LIMIT 1) e`;

type SessionRow = { turns_ended: number; last_at: number; last_seq: number };
const toSessionRow = (row: SessionRow): HookSessionRow => ({ turnsEnded: Number(row.turns_ended), lastAt: Number(row.last_at), lastSeq: Number(row.last_seq) });

/** PostgreSQL's transaction-scoped cache; not SQLite's, which outlives transactions (and a rollback). */
const cacheOf = (sql: Sql) => (sql.dialect === 'postgres' ? sql.rowCache : undefined);

// cached values: a row, or null for a row known absent; no entry: not known
const sessionKey = (namespace: string, tag: string) => `hook-session:${namespace}:${tag}`;
const eventKey = (namespace: string, eventId: string) => `hook-event:${namespace}:${eventId}`;

/**
 * Reads the hook sessions and applied event ids a PostgreSQL batch's hook events will look up, in one
 * round trip. With carried rows (sql.ts) an event id is taken as new, unread, and ASSERT_NOT_APPLIED
 * fails the transaction if it was applied (a re-sent event: it runs again on rows read afresh).
 */
export async function prefetchHookRows(sql: Sql, input: { namespace: string; tags: readonly string[]; eventIds: readonly string[] }): Promise<void> {
  const cache = cacheOf(sql);
  if (!cache) return;
  const tags = input.tags.filter((tag) => !cache.has(sessionKey(input.namespace, tag)));
  let eventIds = input.eventIds.filter((id) => !cache.has(eventKey(input.namespace, id)));
  if (sql.carried && eventIds.length > 0) {
    for (const id of eventIds) cache.set(eventKey(input.namespace, id), null);
    await sql.write(ASSERT_NOT_APPLIED, { namespace: input.namespace, eventIds: keyList(eventIds) });
    eventIds = [];
  }
  const [sessions, events] = await Promise.all([
    tags.length === 0 ? [] : sql.all<SessionRow & { tag: string }>(SELECT_MANY_SESSIONS, { namespace: input.namespace, tags: keyList(tags) }),
    eventIds.length === 0 ? [] : sql.all<{ event_id: string; outcome: string }>(SELECT_MANY_EVENTS, { namespace: input.namespace, eventIds: keyList(eventIds) }),
  ]);
  for (const tag of tags) cache.set(sessionKey(input.namespace, tag), null);
  for (const row of sessions) cache.set(sessionKey(input.namespace, row.tag), toSessionRow(row));
  for (const id of eventIds) cache.set(eventKey(input.namespace, id), null);
  for (const row of events) cache.set(eventKey(input.namespace, row.event_id), row.outcome);
}

export async function getHookSession(sql: Sql, key: { namespace: string; tag: string }): Promise<HookSessionRow | undefined> {
  const hit = cacheOf(sql)?.get(sessionKey(key.namespace, key.tag)) as HookSessionRow | null | undefined;
  if (hit !== undefined) return hit === null ? undefined : { ...hit };
  const row = await sql.get(SELECT_SESSION, key) as SessionRow | undefined;
  return row && toSessionRow(row);
}

export async function saveHookSession(sql: Sql, input: { namespace: string; tag: string } & HookSessionRow): Promise<void> {
  await sql.write(UPSERT_SESSION, input);
  cacheOf(sql)?.set(sessionKey(input.namespace, input.tag), { turnsEnded: input.turnsEnded, lastAt: input.lastAt, lastSeq: input.lastSeq });
}

/** The stored outcome of an applied hook event id, or undefined when it was never applied. */
export async function findAppliedHookEvent(sql: Sql, key: { namespace: string; eventId: string }): Promise<string | undefined> {
  const hit = cacheOf(sql)?.get(eventKey(key.namespace, key.eventId)) as string | null | undefined;
  if (hit !== undefined) return hit ?? undefined;
  return (await sql.get(SELECT_EVENT, key) as { outcome: string } | undefined)?.outcome;
}

export async function recordAppliedHookEvent(sql: Sql, input: { namespace: string; eventId: string; outcome: string; at: number }): Promise<void> {
  await sql.write(INSERT_EVENT, input);
  cacheOf(sql)?.set(eventKey(input.namespace, input.eventId), input.outcome);
}

export async function pruneAppliedHookEvents(sql: Sql, input: { olderThan: number }): Promise<number> {
  const cache = cacheOf(sql);
  if (cache) for (const key of [...cache.keys()]) if (key.startsWith('hook-event:')) cache.delete(key);
  return (await sql.run(PRUNE, input)).changes;
}
