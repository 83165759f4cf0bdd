import type { Role } from '../../shared/protocol/auth.js';
import { stmt, type Db } from './db.js';

export interface StoredToken {
  tokenHash: string;
  role: Role;
  namespace: string;
  source: 'generated' | 'cli';
}

const INSERT = `
  INSERT INTO tokens (token_hash, role, namespace, created_at, source) VALUES (@tokenHash, @role, @namespace, @now, @source)
  ON CONFLICT (token_hash) DO NOTHING`;
const SELECT_ALL = `SELECT token_hash AS tokenHash, role, namespace, source, created_at AS createdAt FROM tokens ORDER BY created_at`;

/** Only hashes are stored; the hub cannot show a token again once printed. */
export function insertToken(db: Db, input: StoredToken & { now: number }): void {
  stmt(db, INSERT).run(input);
}

export function listTokens(db: Db): (StoredToken & { createdAt: number })[] {
  return stmt(db, SELECT_ALL).all() as (StoredToken & { createdAt: number })[];
}
