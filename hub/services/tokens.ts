import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ROLE_NAMES, RoleSchema, type Role } from '../../shared/protocol/auth.js';
import type { Sql, Store } from '../store/sql.js';
import { insertToken, listTokens } from '../store/tokens.js';

export interface TokenIdentity {
  role: Role;
  namespace: string;
  /** sha256 of the token: a stable, non-secret id for per-token limits and logs. */
  tokenHash: string;
}

/** A token in plain text with what it grants: as configured, or as generated on first start. */
export interface PlainToken {
  role: Role;
  namespace: string;
  token: string;
}

/**
 * A token's public id, for audit records (who decided an approval): the first 16 hex digits of its
 * sha256, never the secret. (The token lifecycle gives stored tokens their own ids; this is the one
 * an environment token has as well.)
 */
export function tokenIdOf(identity: Pick<TokenIdentity, 'tokenHash'>): string {
  return identity.tokenHash.slice(0, 16);
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Parses `SESSION_HUB_TOKENS`: comma-separated `role:namespace:token` triples. */
export function parseTokenSpec(spec: string): PlainToken[] {
  const parsed = spec
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part, index) => {
      const [role, namespace, ...rest] = part.split(':');
      const token = rest.join(':');
      const parsedRole = RoleSchema.safeParse(role);
      if (!parsedRole.success) throw new Error(`SESSION_HUB_TOKENS entry ${index + 1}: role must be ${ROLE_NAMES} (got "${role}")`);
      if (!namespace) throw new Error(`SESSION_HUB_TOKENS entry ${index + 1}: namespace is empty; use role:namespace:token`);
      if (token === '') throw new Error(`SESSION_HUB_TOKENS entry ${index + 1}: no token; use role:namespace:token`);
      if (token.length < 8) throw new Error(`SESSION_HUB_TOKENS entry ${index + 1}: token must be at least 8 characters`);
      return { role: parsedRole.data, namespace, token };
    });
  // one secret granting two roles or namespaces: which one a caller gets would depend on list order
  parsed.forEach(({ role, namespace, token }, index) => {
    const first = parsed.findIndex((other) => other.token === token);
    if (first !== index && (parsed[first]!.role !== role || parsed[first]!.namespace !== namespace)) {
      throw new Error(`SESSION_HUB_TOKENS entries ${first + 1} and ${index + 1} use the same token for different grants; give each its own token`);
    }
  });
  return parsed;
}

/**
 * The tokens the hub accepts, held only as sha256 hashes and compared in constant time against
 * every known hash, so neither a match's position nor its prefix shows in the timing.
 */
export class TokenRegistry {
  private entries: { hash: Buffer; identity: TokenIdentity }[] = [];
  private reloadedAt = 0;

  /**
   * `reload`, when given, re-reads the stored tokens after a miss (at most every few seconds), so a
   * token made with `session-hub token create` works without restarting the hub.
   */
  constructor(private readonly reload?: () => Promise<TokenIdentity[]>) {}

  add(identity: TokenIdentity): void {
    this.entries.push({ hash: Buffer.from(identity.tokenHash, 'hex'), identity });
  }

  async verify(token: unknown): Promise<TokenIdentity | undefined> {
    if (typeof token !== 'string' || token.length === 0 || token.length > 4096) return undefined;
    const presented = createHash('sha256').update(token, 'utf8').digest();
    const found = this.find(presented);
    if (found || !this.reload || Date.now() - this.reloadedAt < RELOAD_AFTER_MISS_MS) return found;
    this.reloadedAt = Date.now();
    const reloaded = await this.reload();
    this.entries = [];
    for (const identity of reloaded) this.add(identity);
    return this.find(presented);
  }

  private find(presented: Buffer): TokenIdentity | undefined {
    let found: TokenIdentity | undefined;
    for (const entry of this.entries) {
      if (timingSafeEqual(entry.hash, presented)) found = entry.identity;
    }
    return found;
  }

  get size(): number {
    return this.entries.length;
  }
}

/** A miss re-reads the stored tokens at most this often (a flood of bad tokens costs one read). */
const RELOAD_AFTER_MISS_MS = 2000;

export function generateToken(role: Role): string {
  return `shub_${role}_${randomBytes(24).toString('base64url')}`;
}

/** Makes a new token and stores only its hash; the plaintext is returned to be shown once. */
export async function mintToken(sql: Sql, input: { role: Role; namespace: string; source: 'generated' | 'cli'; now: number }): Promise<PlainToken> {
  const token = generateToken(input.role);
  await insertToken(sql, { tokenHash: hashToken(token), role: input.role, namespace: input.namespace, source: input.source, now: input.now });
  return { role: input.role, namespace: input.namespace, token };
}

/**
 * Builds the registry: the configured tokens when `SESSION_HUB_TOKENS` is set; otherwise the ones
 * stored in the data directory (re-read on a miss; `mintFirstTokens` adds a first start's).
 */
export async function loadTokens(store: Store, spec: string | undefined): Promise<TokenRegistry> {
  if (spec !== undefined && spec.trim() !== '') {
    const registry = new TokenRegistry();
    for (const { role, namespace, token } of parseTokenSpec(spec)) registry.add({ role, namespace, tokenHash: hashToken(token) });
    return registry;
  }
  const stored = async () => (await listTokens(store)).map(({ role, namespace, tokenHash }) => ({ role, namespace, tokenHash }));
  const registry = new TokenRegistry(stored);
  for (const identity of await stored()) registry.add(identity);
  return registry;
}

/**
 * First start without SESSION_HUB_TOKENS: one token per role for namespace `default`, stored hashed
 * and added to `registry`, when the store holds none. Called once the hub listens: tokens minted by
 * a start that then failed (port in use, Redis away) were never printed, and the next start, seeing
 * stored tokens, printed none either. Several processes starting at once on one database: the check
 * and the inserts are one transaction, so only one of them mints.
 */
export async function mintFirstTokens(store: Store, registry: TokenRegistry, spec: string | undefined, now: number): Promise<PlainToken[]> {
  if (spec !== undefined && spec.trim() !== '') return [];
  const minted = await store.transaction(async (tx) => {
    if ((await listTokens(tx)).length > 0) return [];
    const tokens: PlainToken[] = [];
    for (const role of ['runner', 'dashboard', 'admin'] as const) {
      tokens.push(await mintToken(tx, { role, namespace: 'default', source: 'generated', now }));
    }
    return tokens;
  });
  for (const { role, namespace, token } of minted) registry.add({ role, namespace, tokenHash: hashToken(token) });
  return minted;
}
