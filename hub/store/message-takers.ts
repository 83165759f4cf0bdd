import type { Sql } from './sql.js';

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
const NOTE_PROCESS = `UPDATE message_takers SET process = @process WHERE namespace = @namespace AND sid = @sid AND key_hash = @keyHash`;

export async function getTaker(sql: Sql, key: { namespace: string; sid: string }): Promise<StoredTaker | undefined> {
  const row = (await sql.get(SELECT, key)) as { key_hash: string; process: string } | undefined;
  return row && { keyHash: row.key_hash, process: row.process };
}

/** True when this call registered the key (none was). */
export async function registerTaker(sql: Sql, input: { namespace: string; sid: string; keyHash: string; process: string; at: number }): Promise<boolean> {
  return (await sql.run(REGISTER, input)).changes === 1;
}

export async function noteTakerProcess(sql: Sql, input: { namespace: string; sid: string; keyHash: string; process: string }): Promise<void> {
  await sql.run(NOTE_PROCESS, input);
}
