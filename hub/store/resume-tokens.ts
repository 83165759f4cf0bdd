import type { Sql } from './sql.js';

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

export async function getResumeToken(sql: Sql, key: { sid: string; key: string }): Promise<ResumeTokenState | undefined> {
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
  await sql.write(UPSERT_CHANGED, { sid: input.sid, key: input.key, value: JSON.stringify(input.value), now: input.now });
}

/** Marks a token value rejected by the agent; false when the stored value is no longer that one. */
export async function markResumeTokenRejected(sql: Sql, input: { sid: string; key: string; value: unknown }): Promise<boolean> {
  return (await sql.run(MARK_REJECTED, { sid: input.sid, key: input.key, value: JSON.stringify(input.value) })).changes > 0;
}
