import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { HubError } from '../../shared/errors.js';
import { ROLE_NAMES, RoleSchema, type Role } from '../../shared/protocol/auth.js';
import type { Sql, Store } from '../store/sql.js';
import type { TokenInfo } from '../../shared/protocol/tokens.js';
import { findToken, insertToken, listTokens, listValidTokens, revokeToken, type StoredToken, type TokenOrigin } from '../store/tokens.js';

export interface TokenIdentity {
  role: Role;
  namespace: string;
  /** sha256 of the token: a stable, non-secret id for per-token limits and logs. */
  tokenHash: string;
  /** Stored tokens only: refused from then on (null: never). */
  expiresAt?: number | null;
  /** Stored tokens only: the label a person gave it (shown where its id would be). */
  label?: string | null;
}

/** A token in plain text with what it grants: as configured, or as generated on first start. */
export interface PlainToken {
  role: Role;
  namespace: string;
  token: string;
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
  /** When a miss last re-read the stored tokens. */
  private reloadedAt = 0;
  /** Stored tokens seen in use since the last `takeUses`: hash → when. */
  private uses = new Map<string, number>();
  /** Told the hashes of tokens no longer accepted (revoked here, or gone on a refresh). */
  private goneListeners: ((tokenHashes: Set<string>) => void)[] = [];

  /**
   * `reload`, when given, re-reads the stored tokens that are valid now: after a miss (at most every
   * few seconds), so a token made with `session-hub token create` works without restarting the
   * hub, and on every `refresh` (token-watch.ts), so a revoked one stops working.
   */
  constructor(
    private readonly reload?: () => Promise<TokenIdentity[]>,
    private readonly now: () => number = Date.now,
  ) {}

  add(identity: TokenIdentity): void {
    this.entries.push({ hash: Buffer.from(identity.tokenHash, 'hex'), identity });
  }

  async verify(token: unknown): Promise<TokenIdentity | undefined> {
    if (typeof token !== 'string' || token.length === 0 || token.length > 4096) return undefined;
    const presented = createHash('sha256').update(token, 'utf8').digest();
    const found = this.find(presented);
    if (found || !this.reload || Date.now() - this.reloadedAt < RELOAD_AFTER_MISS_MS) return this.accept(found);
    // throttled apart from the periodic refresh: a token made just after one is found at once
    this.reloadedAt = Date.now();
    await this.refresh();
    return this.accept(this.find(presented));
  }

  /** True while the token behind `tokenHash` is accepted (a live socket's token, checked by the watch). */
  accepts(tokenHash: string): boolean {
    return this.entries.some((entry) => entry.identity.tokenHash === tokenHash && !this.expired(entry.identity));
  }

  /** Re-reads the stored tokens (nothing to do for tokens given by environment). */
  async refresh(): Promise<void> {
    if (!this.reload) return;
    const reloaded = await this.reload();
    const before = new Set(this.entries.map((entry) => entry.identity.tokenHash));
    this.entries = [];
    for (const identity of reloaded) this.add(identity);
    for (const identity of reloaded) before.delete(identity.tokenHash);
    this.tellGone(before);
  }

  /**
   * Refuses a token from now on, synchronously: the process that revokes it must not accept it for
   * one more request (a refresh would leave a window of up to TOKEN_REFRESH_MS). Tells the listeners.
   */
  forget(tokenHash: string): void {
    const before = this.entries.length;
    this.entries = this.entries.filter((entry) => entry.identity.tokenHash !== tokenHash);
    if (this.entries.length !== before) this.tellGone(new Set([tokenHash]));
  }

  /** Calls `listener` with the hashes of tokens no longer accepted: to cut their sockets and end their waits. */
  onGone(listener: (tokenHashes: Set<string>) => void): () => void {
    this.goneListeners.push(listener);
    return () => {
      this.goneListeners = this.goneListeners.filter((other) => other !== listener);
    };
  }

  /** A signal aborted when the token behind `tokenHash` stops being accepted, for a wait it holds; `dispose` when the wait ends. */
  revocationSignal(tokenHash: string): { signal: AbortSignal; dispose(): void } {
    const revoked = new AbortController();
    const dispose = this.onGone((hashes) => {
      if (hashes.has(tokenHash)) revoked.abort(new HubError('unauthorized', 'this token was revoked or expired while its request waited'));
    });
    return { signal: revoked.signal, dispose };
  }

  private tellGone(tokenHashes: Set<string>): void {
    if (tokenHashes.size === 0) return;
    for (const listener of this.goneListeners) listener(tokenHashes);
  }

  /** The stored tokens used since the last call, and when: written to the store by the watch. */
  takeUses(): Map<string, number> {
    const uses = this.uses;
    this.uses = new Map();
    return uses;
  }

  /** Marks a stored token used now (a live socket holding it counts). */
  noteUse(tokenHash: string): void {
    if (this.reload) this.uses.set(tokenHash, this.now());
  }

  private accept(found: TokenIdentity | undefined): TokenIdentity | undefined {
    if (!found || this.expired(found)) return undefined;
    this.noteUse(found.tokenHash);
    return found;
  }

  private expired(identity: TokenIdentity): boolean {
    return identity.expiresAt != null && identity.expiresAt <= this.now();
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

/** A stored token's public id: the start of its hash (shown by list, named by revoke). */
export function tokenIdOf(tokenHash: string): string {
  return tokenHash.slice(0, 12);
}

/** Makes a new token and stores only its hash; the plaintext is returned to be shown once. */
export async function mintToken(
  sql: Sql,
  input: { role: Role; namespace: string; source: TokenOrigin; now: number; expiresAt?: number | null; label?: string | null },
): Promise<PlainToken & { stored: StoredToken }> {
  const token = generateToken(input.role);
  const tokenHash = hashToken(token);
  const stored: StoredToken = {
    id: tokenIdOf(tokenHash),
    label: input.label ?? null,
    tokenHash,
    role: input.role,
    namespace: input.namespace,
    source: input.source,
    createdAt: input.now,
    expiresAt: input.expiresAt ?? null,
    revokedAt: null,
    lastUsedAt: null,
  };
  await insertToken(sql, stored);
  return { role: input.role, namespace: input.namespace, token, stored };
}

/** What is shown of a stored token (never its hash or secret). */
export function tokenInfo(stored: StoredToken): TokenInfo {
  const { id, label, role, namespace, source, createdAt, lastUsedAt, expiresAt, revokedAt } = stored;
  return { id, label, role, namespace, origin: source, createdAt, lastUsedAt, expiresAt, revokedAt };
}

/**
 * Revokes a stored token by id; with `namespace`, only one of that namespace (an admin's over HTTP).
 * The caller's process refuses it at once (`TokenRegistry.forget`); every other hub process within
 * TOKEN_REFRESH_MS (token-watch.ts), cutting its sockets and ending its waits.
 */
export async function revokeStoredToken(sql: Sql, input: { id: string; namespace?: string; now: number }): Promise<StoredToken | undefined> {
  const found = await findToken(sql, input.id);
  if (!found || (input.namespace !== undefined && found.namespace !== input.namespace)) return undefined;
  if (found.revokedAt === null) await revokeToken(sql, input);
  return await findToken(sql, input.id);
}

/**
 * Builds the registry: the configured tokens when `SESSION_HUB_TOKENS` is set; otherwise the ones
 * stored in the data directory (re-read on a miss; `mintFirstTokens` adds a first start's).
 */
export async function loadTokens(store: Store, spec: string | undefined, now: () => number = Date.now): Promise<TokenRegistry> {
  if (spec !== undefined && spec.trim() !== '') {
    const registry = new TokenRegistry();
    for (const { role, namespace, token } of parseTokenSpec(spec)) registry.add({ role, namespace, tokenHash: hashToken(token) });
    return registry;
  }
  const stored = async () => (await listValidTokens(store, now())).map(({ role, namespace, tokenHash, expiresAt, label }) => ({ role, namespace, tokenHash, expiresAt, label }));
  const registry = new TokenRegistry(stored, now);
  for (const identity of await stored()) registry.add(identity);
  return registry;
}

/**
 * First start without SESSION_HUB_TOKENS: an agent (for hooks), a runner, a dashboard and an admin
 * token for namespace `default`, stored hashed
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
    for (const role of ['agent', 'runner', 'dashboard', 'admin'] as const) {
      // labelled, so the page names who decided ("allowed by first-start admin"), not a bare id
      tokens.push(await mintToken(tx, { role, namespace: 'default', source: 'generated', now, label: `first-start ${role}` }));
    }
    return tokens;
  });
  for (const { role, namespace, token } of minted) registry.add({ role, namespace, tokenHash: hashToken(token) });
  return minted;
}
