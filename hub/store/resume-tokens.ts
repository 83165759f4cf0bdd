import type { Sql } from './sql.js';
import { keyList } from './key-lists.js';
import { noneToRead, sessionsToRead } from './carried-reads.js';

export interface ResumeTokenState {
  key: string;
  value: string;
  /** When the key last changed to its current value: the TTL counts from here. */
  since: number;
  rejected: boolean;
}

const SELECT = `SELECT key, value, since, rejected FROM resume_tokens WHERE sid = @sid AND key = @key`;
const UPSERT_CHANGED = `
  INSERT INTO resume_tokens (sid, key, value, since, rejected) VALUES (@sid, @key, @value, @now, 0)
  ON CONFLICT (sid, key) DO UPDATE SET value = excluded.value, since = excluded.since, rejected = 0
  WHERE resume_tokens.value <> excluded.value`;
const MARK_REJECTED = `UPDATE resume_tokens SET rejected = 1 WHERE sid = @sid AND key = @key AND value = @value`;

/*
 * On PostgreSQL a session created in the transaction has no token yet (noResumeTokensYet), and the
 * writes below keep what the transaction knows current: its snapshots read nothing (issue 31).
 */
const cacheOf = (sql: Sql) => (sql.dialect === 'postgres' ? sql.rowCache : undefined);
const tokenKey = (sid: string, key: string) => `resume-token:${sid}:${key}`;
/** Set when every token of the session is in the cache: a key not there has none. */
const allKnownKey = (sid: string) => `resume-tokens-known:${sid}`;

/** What this transaction knows of a token: its state, null (surely none) or undefined (read it). */
function known(sql: Sql, key: { sid: string; key: string }): ResumeTokenState | null | undefined {
  const cache = cacheOf(sql);
  if (!cache) return undefined;
  const hit = cache.get(tokenKey(key.sid, key.key)) as ResumeTokenState | null | undefined;
  if (hit !== undefined) return hit;
  return cache.has(allKnownKey(key.sid)) ? null : undefined;
}

/** A session created in this PostgreSQL transaction has no resume token yet. */
export function noResumeTokensYet(sql: Sql, sid: string): void {
  cacheOf(sql)?.set(allKnownKey(sid), true);
}

export const SELECT_OF_SESSIONS = `
  SELECT s.sid AS session_sid, r.key, r.value, r.since, r.rejected FROM sessions s LEFT JOIN resume_tokens r ON r.sid = s.sid
  WHERE s.namespace = @namespace AND (s.sid = ANY (ARRAY(SELECT jsonb_array_elements_text(CAST(@sids AS jsonb)))) OR s.tag = ANY (ARRAY(SELECT jsonb_array_elements_text(CAST(@tags AS jsonb)))))`;

/** Every token of these sessions (by sid or tag), for a PostgreSQL batch whose writes show them whole, in one statement. */
export async function prefetchResumeTokens(sql: Sql, input: { namespace: string; sids: readonly string[]; tags: readonly string[] }): Promise<void> {
  const cache = cacheOf(sql);
  if (!cache) return;
  const toRead = sessionsToRead(sql, input, (sid) => cache.has(allKnownKey(sid)));
  if (noneToRead(toRead)) return;
  const rows = await sql.all<{ session_sid: string; key: string | null; value: string; since: number; rejected: number }>(SELECT_OF_SESSIONS, {
    namespace: input.namespace, sids: keyList(toRead.sids), tags: keyList(toRead.tags),
  });
  for (const row of rows) {
    if (cache.has(allKnownKey(row.session_sid))) continue;
    if (row.key !== null) cache.set(tokenKey(row.session_sid, row.key), { key: row.key, value: row.value, since: Number(row.since), rejected: Number(row.rejected) === 1 });
  }
  for (const row of rows) cache.set(allKnownKey(row.session_sid), true);
}

export async function getResumeToken(sql: Sql, key: { sid: string; key: string }): Promise<ResumeTokenState | undefined> {
  const hit = known(sql, key);
  if (hit !== undefined) return hit === null ? undefined : { ...hit };
  const row = await sql.get(SELECT, key) as { key: string; value: string; since: number; rejected: number } | undefined;
  return row && { key: row.key, value: row.value, since: row.since, rejected: row.rejected === 1 };
}

/**
 * Records the token's current value. Writing the same value again changes nothing (the TTL is not
 * refreshed, a rejection stands); a different value restarts the clock and clears the rejection.
 * A clear keeps the row: if the same value comes back (a repair, a runner re-sending it) it is still
 * the same token, as old and as rejected as before; only a different value is a new token.
 */
export async function trackResumeToken(sql: Sql, input: { sid: string; key: string; value: unknown; now: number }): Promise<void> {
  if (input.value === undefined || input.value === null) return;
  const value = JSON.stringify(input.value);
  await sql.write(UPSERT_CHANGED, { sid: input.sid, key: input.key, value, now: input.now });
  // as UPSERT_CHANGED leaves it: a different value restarts the clock and clears the rejection
  const before = known(sql, input);
  if (before !== undefined && before?.value !== value) cacheOf(sql)!.set(tokenKey(input.sid, input.key), { key: input.key, value, since: input.now, rejected: false });
}

/** Marks a token value rejected by the agent; false when the stored value is no longer that one. */
export async function markResumeTokenRejected(sql: Sql, input: { sid: string; key: string; value: unknown }): Promise<boolean> {
  const marked = (await sql.run(MARK_REJECTED, { sid: input.sid, key: input.key, value: JSON.stringify(input.value) })).changes > 0;
  cacheOf(sql)?.delete(tokenKey(input.sid, input.key));
  return marked;
}
