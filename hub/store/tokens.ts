import type { Role } from '../../shared/protocol/auth.js';
import type { Sql } from './sql.js';

/** How a stored token came to be: a first start, `session-hub token create`, or `POST /api/tokens`. */
export type TokenOrigin = 'generated' | 'cli' | 'api' | 'sign-in-link';

export interface StoredToken {
  /** Public: the first 12 hex digits of the hash (migration 006). */
  id: string;
  /** A person's name for it (migration 013); null: none. */
  label: string | null;
  tokenHash: string;
  role: Role;
  namespace: string;
  source: TokenOrigin;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
  lastUsedAt: number | null;
}

const COLUMNS = `id, label, token_hash AS "tokenHash", role, namespace, source, created_at AS "createdAt",
  expires_at AS "expiresAt", revoked_at AS "revokedAt", last_used_at AS "lastUsedAt"`;
const INSERT = `
  INSERT INTO tokens (id, label, token_hash, role, namespace, created_at, source, expires_at)
  VALUES (@id, @label, @tokenHash, @role, @namespace, @createdAt, @source, @expiresAt)
  ON CONFLICT (token_hash) DO NOTHING`;
const SELECT_ALL = `SELECT ${COLUMNS} FROM tokens ORDER BY created_at, id`;
const SELECT_NAMESPACE = `SELECT ${COLUMNS} FROM tokens WHERE namespace = @namespace ORDER BY created_at, id`;
/** What a hub accepts: neither revoked nor expired (expiry is checked again at every use). */
const SELECT_VALID = `SELECT ${COLUMNS} FROM tokens WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > @now)`;
const REVOKE = `UPDATE tokens SET revoked_at = @now WHERE id = @id AND revoked_at IS NULL`;
const SELECT_ONE = `SELECT ${COLUMNS} FROM tokens WHERE id = @id`;
const TOUCH = `UPDATE tokens SET last_used_at = @at WHERE token_hash = @tokenHash AND (last_used_at IS NULL OR last_used_at < @at)`;

export type NewToken = Pick<StoredToken, 'id' | 'label' | 'tokenHash' | 'role' | 'namespace' | 'source' | 'createdAt' | 'expiresAt'>;

/** Only hashes are stored; the hub cannot show a token again once printed. */
export async function insertToken(sql: Sql, input: NewToken): Promise<void> {
  await sql.run(INSERT, input);
}

/** Every stored token (revoked and expired ones too), or one namespace's. */
export async function listTokens(sql: Sql, filter: { namespace?: string } = {}): Promise<StoredToken[]> {
  return filter.namespace === undefined ? await sql.all<StoredToken>(SELECT_ALL) : await sql.all<StoredToken>(SELECT_NAMESPACE, filter);
}

export async function listValidTokens(sql: Sql, now: number): Promise<StoredToken[]> {
  return await sql.all<StoredToken>(SELECT_VALID, { now });
}

export async function findToken(sql: Sql, id: string): Promise<StoredToken | undefined> {
  return await sql.get<StoredToken>(SELECT_ONE, { id });
}

/** Marks the token revoked (once: a second revoke keeps the first time); the row stays for `token list`. */
export async function revokeToken(sql: Sql, input: { id: string; now: number }): Promise<void> {
  await sql.run(REVOKE, input);
}

/** Records when tokens were last used (never moving a time backwards: several processes write it). */
export async function touchTokens(sql: Sql, uses: ReadonlyMap<string, number>): Promise<void> {
  for (const [tokenHash, at] of uses) await sql.run(TOUCH, { tokenHash, at });
}
