import type { Message, MessageState } from '../../shared/protocol/messages.js';
import type { Sql } from './sql.js';
import { keyList } from './key-lists.js';
import { noneToRead, sessionsToRead } from './carried-reads.js';
import { cacheListsBySession, removeFromCachedLists } from './cached-lists.js';

interface MessageRow {
  message_id: string;
  sid: string;
  namespace: string;
  text: string;
  state: MessageState;
  created_at: number | string;
  delivered_at: number | string | null;
  ended_at: number | string | null;
  by_token: string;
  by_label: string | null;
  via: string | null;
  taken_by: string | null;
}

const INSERT = `
  INSERT INTO messages (message_id, sid, namespace, text, text_bytes, state, created_at, by_token, by_label)
  VALUES (@id, @sid, @namespace, @text, @textBytes, 'queued', @createdAt, @byToken, @byLabel)`;
const SELECT_ONE = `SELECT * FROM messages WHERE message_id = @id AND sid = @sid AND namespace = @namespace`;
/** A page of the session's messages, newest first, before a position (the page before the previous one). */
const SELECT_PAGE = `
  SELECT * FROM messages WHERE sid = @sid AND (created_at < @beforeAt OR (created_at = @beforeAt AND message_id < @beforeId))
  ORDER BY created_at DESC, message_id DESC LIMIT @limit`;
const SELECT_QUEUE_SIZE = `SELECT COUNT(*) AS count, COALESCE(SUM(text_bytes), 0) AS bytes FROM messages WHERE sid = @sid AND state = 'queued'`;
const SELECT_QUEUED = `SELECT * FROM messages WHERE sid = @sid AND state = 'queued' ORDER BY created_at, message_id`;
const SELECT_STALE = `SELECT * FROM messages WHERE state = 'queued' AND created_at < @before ORDER BY created_at, message_id LIMIT @limit`;
/** Compare-and-set: only a queued message is delivered, cancelled or expired, so two takers cannot both win. */
const DELIVER = `UPDATE messages SET state = 'delivered', delivered_at = @at, via = @via, taken_by = @takenBy WHERE message_id = @id AND state = 'queued'`;
const END = `UPDATE messages SET state = @state, ended_at = @at WHERE message_id = @id AND state = 'queued'`;

const time = (value: number | string | null) => (value === null ? null : Number(value));

function toMessage(row: MessageRow): Message {
  return {
    id: row.message_id,
    sid: row.sid,
    text: row.text,
    state: row.state,
    createdAt: Number(row.created_at),
    deliveredAt: time(row.delivered_at),
    endedAt: time(row.ended_at),
    by: { tokenId: row.by_token, label: row.by_label },
    via: row.via,
    takenBy: row.taken_by ?? null,
  };
}

/*
 * On PostgreSQL a batch reads its sessions' queued messages at once (prefetchQueuedMessages, from
 * batch-reads.ts) into the transaction's rowCache: a hook's stop that takes what is queued reads
 * nothing on its own while the lock is held (issue 31). A message queued joins its list; one delivered
 * or ended leaves it (its compare-and-set then waits for the next round trip: the row is held
 * queued under the lock). Not on SQLite, whose cache outlives transactions.
 */
const queuedKey = (sid: string) => `queued-messages:${sid}`;
const cacheOf = (sql: Sql) => (sql.dialect === 'postgres' ? sql.rowCache : undefined);
function forgetQueued(sql: Sql, sid?: string): void {
  const cache = cacheOf(sql);
  if (!cache) return;
  if (sid !== undefined) cache.delete(queuedKey(sid));
  else for (const key of [...cache.keys()]) if (key.startsWith('queued-messages:')) cache.delete(key);
}

export const SELECT_QUEUED_OF_SESSIONS = `
  SELECT s.sid AS session_sid, m.* FROM sessions s LEFT JOIN messages m ON m.sid = s.sid AND m.state = 'queued'
  WHERE s.namespace = @namespace
    AND (s.sid = ANY (ARRAY(SELECT jsonb_array_elements_text(CAST(@sids AS jsonb)))) OR s.tag = ANY (ARRAY(SELECT jsonb_array_elements_text(CAST(@tags AS jsonb)))))
  ORDER BY m.created_at, m.message_id`;

/** The queued messages of a PostgreSQL batch's sessions (by sid or tag), in one statement. */
export async function prefetchQueuedMessages(sql: Sql, input: { namespace: string; sids: readonly string[]; tags: readonly string[] }): Promise<void> {
  const cache = cacheOf(sql);
  if (!cache) return;
  const toRead = sessionsToRead(sql, input, (sid) => cache.has(queuedKey(sid)));
  if (noneToRead(toRead)) return;
  const rows = await sql.all<MessageRow & { session_sid: string }>(SELECT_QUEUED_OF_SESSIONS, { namespace: input.namespace, sids: keyList(toRead.sids), tags: keyList(toRead.tags) });
  cacheListsBySession(cache, rows, queuedKey, (row) => (row.message_id === null ? undefined : toMessage(row)));
}

/** A session created in this PostgreSQL transaction has no queued message yet (nothing to read). */
export function noQueuedMessagesYet(sql: Sql, sid: string): void {
  cacheOf(sql)?.set(queuedKey(sid), []);
}

export async function insertMessage(sql: Sql, input: { id: string; sid: string; namespace: string; text: string; createdAt: number; byToken: string; byLabel: string | null }): Promise<void> {
  // a new id: nothing to learn from the row count, so the insert waits for the batch's next round trip
  await sql.write(INSERT, { ...input, textBytes: Buffer.byteLength(input.text) });
  const queued = cacheOf(sql)?.get(queuedKey(input.sid)) as Message[] | undefined;
  queued?.push(toMessage({
    message_id: input.id, sid: input.sid, namespace: input.namespace, text: input.text, state: 'queued', created_at: input.createdAt,
    delivered_at: null, ended_at: null, by_token: input.byToken, by_label: input.byLabel, via: null, taken_by: null,
  }));
}

/** A message of this session in this namespace; another tenant's is exactly as absent as a missing one. */
export async function getMessage(sql: Sql, key: { id: string; sid: string; namespace: string }): Promise<Message | undefined> {
  // one of the session's queued messages the batch read (its namespace's): nothing to read
  const queued = (cacheOf(sql)?.get(queuedKey(key.sid)) as Message[] | undefined)?.find((message) => message.id === key.id);
  if (queued) return { ...queued };
  const row = (await sql.get(SELECT_ONE, key)) as MessageRow | undefined;
  return row && toMessage(row);
}

/** A position in a session's list: a message's creation time and id (the order of the list). */
export interface MessagePosition {
  at: number;
  id: string;
}

/**
 * Up to `limit` messages before `before` (none: the latest), oldest first within the page; `more`
 * when older ones remain (read one more than asked, so the last page says it is the last).
 */
export async function listMessagePage(sql: Sql, input: { sid: string; limit: number; before?: MessagePosition }): Promise<{ messages: Message[]; more: boolean }> {
  const before = input.before ?? { at: Number.MAX_SAFE_INTEGER, id: '' };
  const rows = (await sql.all(SELECT_PAGE, { sid: input.sid, beforeAt: before.at, beforeId: before.id, limit: input.limit + 1 })) as MessageRow[];
  // the default position sorts after every message of that time: '' is below any id, so the time bound does it
  return { messages: rows.slice(0, input.limit).map(toMessage).reverse(), more: rows.length > input.limit };
}

/** What the session's queue holds now: queued messages and their bytes of UTF-8 (its limits). */
export async function queuedSize(sql: Sql, sid: string): Promise<{ count: number; bytes: number }> {
  const queued = cacheOf(sql)?.get(queuedKey(sid)) as Message[] | undefined;
  if (queued) return { count: queued.length, bytes: queued.reduce((sum, message) => sum + Buffer.byteLength(message.text), 0) };
  const row = (await sql.get(SELECT_QUEUE_SIZE, { sid })) as { count: number | string; bytes: number | string };
  return { count: Number(row.count), bytes: Number(row.bytes) };
}

/** The session's queued messages, oldest first (the order the agent reads them in). */
export async function listQueuedMessages(sql: Sql, sid: string): Promise<Message[]> {
  const hit = cacheOf(sql)?.get(queuedKey(sid)) as Message[] | undefined;
  if (hit) return hit.map((message) => ({ ...message }));
  return ((await sql.all(SELECT_QUEUED, { sid })) as MessageRow[]).map(toMessage);
}

/** Queued messages older than `before`, oldest first, with their namespace (the sweep expires them). */
export async function listStaleMessages(sql: Sql, before: number, limit: number): Promise<{ message: Message; namespace: string }[]> {
  return ((await sql.all(SELECT_STALE, { before, limit })) as MessageRow[]).map((row) => ({ message: toMessage(row), namespace: row.namespace }));
}

/** Marks a queued message delivered; false when it was no longer queued (nothing changed). */
export async function markMessageDelivered(sql: Sql, input: { id: string; at: number; via: string; takenBy: string | null }): Promise<boolean> {
  if (removeFromCachedLists<Message>(sql, 'queued-messages:', (message) => message.id === input.id)) {
    await sql.write(DELIVER, input);
    return true;
  }
  forgetQueued(sql);
  return (await sql.run(DELIVER, input)).changes === 1;
}

/**
 * Ends a queued message (cancelled or expired); false when it was no longer queued. `readQueued`:
 * the caller read it queued in this transaction, under its lock (the sweep's stale messages).
 */
export async function endMessage(sql: Sql, input: { id: string; state: 'cancelled' | 'expired'; at: number }, readQueued = false): Promise<boolean> {
  if (removeFromCachedLists<Message>(sql, 'queued-messages:', (message) => message.id === input.id) || (readQueued && sql.dialect === 'postgres')) {
    await sql.write(END, input);
    return true;
  }
  forgetQueued(sql);
  return (await sql.run(END, input)).changes === 1;
}

