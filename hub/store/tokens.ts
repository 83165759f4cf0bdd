import type { Role } from '../../shared/protocol/auth.js';
import type { Sql } from './sql.js';

export interface StoredToken {
  tokenHash: string;
  role: Role;
  namespace: string;
  source: 'generated' | 'cli';
}

const INSERT = `
  INSERT INTO tokens (token_hash, role, namespace, created_at, source) VALUES (@tokenHash, @role, @namespace, @now, @source)
  ON CONFLICT (token_hash) DO NOTHING`;
const SELECT_ALL = `SELECT token_hash AS "tokenHash", role, namespace, source, created_at AS "createdAt" FROM tokens ORDER BY created_at`;

/** Only hashes are stored; the hub cannot show a token again once printed. */
export async function insertToken(sql: Sql, input: StoredToken & { now: number }): Promise<void> {
  await sql.run(INSERT, input);
}

export async function listTokens(sql: Sql): Promise<(StoredToken & { createdAt: number })[]> {
  return await sql.all(SELECT_ALL) as (StoredToken & { createdAt: number })[];
}
