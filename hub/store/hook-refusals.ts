import type { Sql } from './sql.js';

/** A refused hook delivery's tally for one presented token and address (migration 016). */
export interface HookRefusal {
  tokenId: string;
  address: string;
  namespace: string | null;
  status: number;
  message: string;
  count: number;
  firstAt: number;
  lastAt: number;
}

const UPSERT = `
  INSERT INTO hook_refusals (token_id, address, namespace, status, message, count, first_at, last_at)
  VALUES (@tokenId, @address, @namespace, @status, @message, @count, @at, @at)
  ON CONFLICT (token_id, address) DO UPDATE SET
    count = hook_refusals.count + excluded.count, namespace = excluded.namespace, status = excluded.status,
    message = excluded.message, last_at = excluded.last_at`;
const COLUMNS = `token_id AS "tokenId", address, namespace, status, message, count, first_at AS "firstAt", last_at AS "lastAt"`;
const SINCE = `SELECT ${COLUMNS} FROM hook_refusals WHERE last_at >= @since ORDER BY last_at DESC LIMIT 100`;

export async function recordHookRefusal(sql: Sql, input: Omit<HookRefusal, 'firstAt' | 'lastAt'> & { at: number }): Promise<void> {
  await sql.run(UPSERT, input);
}

/** The refusals seen since `since`, newest first (at most 100 token/address pairs). */
export async function listHookRefusals(sql: Sql, since: number): Promise<HookRefusal[]> {
  const rows = await sql.all<HookRefusal>(SINCE, { since });
  return rows.map((row) => ({ ...row, status: Number(row.status), count: Number(row.count), firstAt: Number(row.firstAt), lastAt: Number(row.lastAt) }));
}
