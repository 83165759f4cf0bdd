import type { Sql } from './sql.js';
import { keyList } from './key-lists.js';
import { noneToRead, sessionsToRead } from './carried-reads.js';

/** A session's registered taker: the sha256 of its key, and the process that last proved it (shown as who took a runner's message). */
export interface StoredTaker {
  keyHash: string;
  process: string;
}

const SELECT = `SELECT key_hash, process FROM message_takers WHERE namespace = @namespace AND sid = @sid`;
/** The first key wins: a second registration of the session changes nothing. */
const REGISTER = `
  INSERT INTO message_takers (namespace, sid, key_hash, process, registered_at) VALUES (@namespace, @sid, @keyHash, @process, @at)
  ON CONFLICT (namespace, sid) DO NOTHING`;
/** A continue a person asked for hands the session's messages to the runner it sent the agent to (hub/people/message-takers.ts). */
const HAND_OVER = `
  INSERT INTO message_takers (namespace, sid, key_hash, process, registered_at) VALUES (@namespace, @sid, @keyHash, @process, @at)
  ON CONFLICT (namespace, sid) DO UPDATE SET key_hash = excluded.key_hash, process = excluded.process, registered_at = excluded.registered_at`;
const NOTE_PROCESS = `UPDATE message_takers SET process = @process WHERE namespace = @namespace AND sid = @sid AND key_hash = @keyHash`;

/*
 * On PostgreSQL a batch reads its sessions' takers at once (prefetchTakers, from batch-reads.ts)
 * into the transaction's rowCache, absent ones included (null): every hook event proves its taker,
 * and reads nothing on its own while the lock is held (issue 31). Registering a key for a session
 * known to have none is then a deferred write: under the namespace's write lock no other process
 * registers one meanwhile. Not on SQLite, whose cache outlives transactions.
 */
const takerKey = (namespace: string, sid: string) => `taker:${namespace}:${sid}`;
const cacheOf = (sql: Sql) => (sql.dialect === 'postgres' ? sql.rowCache : undefined);

export const SELECT_OF_SESSIONS = `
  SELECT s.sid AS session_sid, t.key_hash, t.process FROM sessions s LEFT JOIN message_takers t ON t.namespace = s.namespace AND t.sid = s.sid
  WHERE s.namespace = @namespace
    AND (s.sid = ANY (ARRAY(SELECT jsonb_array_elements_text(CAST(@sids AS jsonb)))) OR s.tag = ANY (ARRAY(SELECT jsonb_array_elements_text(CAST(@tags AS jsonb)))))`;

/** The takers of a PostgreSQL batch's sessions (by sid or tag), in one statement. */
export async function prefetchTakers(sql: Sql, input: { namespace: string; sids: readonly string[]; tags: readonly string[] }): Promise<void> {
  const cache = cacheOf(sql);
  if (!cache) return;
  const toRead = sessionsToRead(sql, input, (sid) => cache.has(takerKey(input.namespace, sid)));
  if (noneToRead(toRead)) return;
  const rows = await sql.all<{ session_sid: string; key_hash: string | null; process: string | null }>(SELECT_OF_SESSIONS, { namespace: input.namespace, sids: keyList(toRead.sids), tags: keyList(toRead.tags) });
  for (const row of rows) {
    const key = takerKey(input.namespace, row.session_sid);
    if (!cache.has(key)) cache.set(key, row.key_hash === null ? null : { keyHash: row.key_hash, process: row.process ?? '' });
  }
}

export async function getTaker(sql: Sql, key: { namespace: string; sid: string }): Promise<StoredTaker | undefined> {
  const hit = cacheOf(sql)?.get(takerKey(key.namespace, key.sid)) as StoredTaker | null | undefined;
  if (hit !== undefined) return hit === null ? undefined : { ...hit };
  const row = (await sql.get(SELECT, key)) as { key_hash: string; process: string } | undefined;
  return row && { keyHash: row.key_hash, process: row.process };
}

/** True when this call registered the key (none was). */
/** A session created in this PostgreSQL transaction has no taker yet (nothing to read). */
export function noTakerYet(sql: Sql, session: { namespace: string; sid: string }): void {
  cacheOf(sql)?.set(takerKey(session.namespace, session.sid), null);
}

export async function registerTaker(sql: Sql, input: { namespace: string; sid: string; keyHash: string; process: string; at: number }): Promise<boolean> {
  const cache = cacheOf(sql);
  const key = takerKey(input.namespace, input.sid);
  if (cache?.get(key) === null) {
    await sql.write(REGISTER, input);
    cache.set(key, { keyHash: input.keyHash, process: input.process });
    return true;
  }
  const registered = (await sql.run(REGISTER, input)).changes === 1;
  if (registered) cache?.set(key, { keyHash: input.keyHash, process: input.process });
  return registered;
}

export async function noteTakerProcess(sql: Sql, input: { namespace: string; sid: string; keyHash: string; process: string }): Promise<void> {
  await sql.write(NOTE_PROCESS, input);
  const cache = cacheOf(sql);
  const key = takerKey(input.namespace, input.sid);
  const held = cache?.get(key) as StoredTaker | null | undefined;
  if (held && held.keyHash === input.keyHash) cache!.set(key, { ...held, process: input.process });
}

/** Replaces the session's taker (or registers one): only for a continue a person asked for. */
export async function handOverTaker(sql: Sql, input: { namespace: string; sid: string; keyHash: string; process: string; at: number }): Promise<void> {
  await sql.run(HAND_OVER, input);
  cacheOf(sql)?.set(takerKey(input.namespace, input.sid), { keyHash: input.keyHash, process: input.process });
}
