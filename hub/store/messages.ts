import type { Message, MessageState } from '../../shared/protocol/messages.js';
import type { Sql } from './sql.js';

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
}

const INSERT = `
  INSERT INTO messages (message_id, sid, namespace, text, state, created_at, by_token, by_label)
  VALUES (@id, @sid, @namespace, @text, 'queued', @createdAt, @byToken, @byLabel)`;
const SELECT_ONE = `SELECT * FROM messages WHERE message_id = @id AND sid = @sid AND namespace = @namespace`;
const SELECT_FOR_SESSION = `SELECT * FROM messages WHERE sid = @sid ORDER BY created_at, message_id`;
const SELECT_QUEUED = `SELECT * FROM messages WHERE sid = @sid AND state = 'queued' ORDER BY created_at, message_id`;
const SELECT_STALE = `SELECT * FROM messages WHERE state = 'queued' AND created_at < @before ORDER BY created_at, message_id LIMIT @limit`;
/** Compare-and-set: only a queued message is delivered, cancelled or expired, so two takers cannot both win. */
const DELIVER = `UPDATE messages SET state = 'delivered', delivered_at = @at, via = @via WHERE message_id = @id AND state = 'queued'`;
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
  };
}

export async function insertMessage(sql: Sql, input: { id: string; sid: string; namespace: string; text: string; createdAt: number; byToken: string; byLabel: string | null }): Promise<void> {
  await sql.run(INSERT, input);
}

/** A message of this session in this namespace; another tenant's is exactly as absent as a missing one. */
export async function getMessage(sql: Sql, key: { id: string; sid: string; namespace: string }): Promise<Message | undefined> {
  const row = (await sql.get(SELECT_ONE, key)) as MessageRow | undefined;
  return row && toMessage(row);
}

/** Oldest first. */
export async function listMessages(sql: Sql, sid: string): Promise<Message[]> {
  return ((await sql.all(SELECT_FOR_SESSION, { sid })) as MessageRow[]).map(toMessage);
}

/** The session's queued messages, oldest first (the order the agent reads them in). */
export async function listQueuedMessages(sql: Sql, sid: string): Promise<Message[]> {
  return ((await sql.all(SELECT_QUEUED, { sid })) as MessageRow[]).map(toMessage);
}

/** Queued messages older than `before`, oldest first, with their namespace (the sweep expires them). */
export async function listStaleMessages(sql: Sql, before: number, limit: number): Promise<{ message: Message; namespace: string }[]> {
  return ((await sql.all(SELECT_STALE, { before, limit })) as MessageRow[]).map((row) => ({ message: toMessage(row), namespace: row.namespace }));
}

/** Marks a queued message delivered; false when it was no longer queued (nothing changed). */
export async function markMessageDelivered(sql: Sql, input: { id: string; at: number; via: string }): Promise<boolean> {
  return (await sql.run(DELIVER, input)).changes === 1;
}

/** Ends a queued message (cancelled or expired); false when it was no longer queued. */
export async function endMessage(sql: Sql, input: { id: string; state: 'cancelled' | 'expired'; at: number }): Promise<boolean> {
  return (await sql.run(END, input)).changes === 1;
}
