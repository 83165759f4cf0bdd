import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { RoleSchema, type Role } from '../../shared/protocol/auth.js';
import type { Db } from '../store/db.js';
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

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Parses `SESSION_HUB_TOKENS`: comma-separated `role:namespace:token` triples. */
export function parseTokenSpec(spec: string): PlainToken[] {
  return spec
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part, index) => {
      const [role, namespace, ...rest] = part.split(':');
      const token = rest.join(':');
      const parsedRole = RoleSchema.safeParse(role);
      if (!parsedRole.success) throw new Error(`SESSION_HUB_TOKENS entry ${index + 1}: role must be runner, dashboard or admin (got "${role}")`);
      if (!namespace) throw new Error(`SESSION_HUB_TOKENS entry ${index + 1}: namespace is empty; use role:namespace:token`);
      if (token.length < 8) throw new Error(`SESSION_HUB_TOKENS entry ${index + 1}: token must be at least 8 characters`);
      return { role: parsedRole.data, namespace, token };
    });
}

/**
 * The tokens the hub accepts, held only as sha256 hashes and compared in constant time against
 * every known hash, so neither a match's position nor its prefix shows in the timing.
 */
export class TokenRegistry {
  private readonly entries: { hash: Buffer; identity: TokenIdentity }[] = [];

  add(identity: TokenIdentity): void {
    this.entries.push({ hash: Buffer.from(identity.tokenHash, 'hex'), identity });
  }

  verify(token: unknown): TokenIdentity | undefined {
    if (typeof token !== 'string' || token.length === 0 || token.length > 4096) return undefined;
    const presented = createHash('sha256').update(token, 'utf8').digest();
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

export function generateToken(role: Role): string {
  return `shub_${role}_${randomBytes(24).toString('base64url')}`;
}

/**
 * Builds the registry: the configured tokens when `SESSION_HUB_TOKENS` is set; otherwise the ones
 * stored in the data directory, creating a runner, a dashboard and an admin token for namespace
 * `default` on first start. Returns the new plaintext tokens so the caller can print them once.
 */
export function loadTokens(db: Db, spec: string | undefined, now: number): { registry: TokenRegistry; generated: PlainToken[] } {
  const registry = new TokenRegistry();
  if (spec !== undefined && spec.trim() !== '') {
    for (const { role, namespace, token } of parseTokenSpec(spec)) registry.add({ role, namespace, tokenHash: hashToken(token) });
    return { registry, generated: [] };
  }
  const generated: PlainToken[] = [];
  if (listTokens(db).length === 0) {
    for (const role of ['runner', 'dashboard', 'admin'] as const) {
      const token = generateToken(role);
      insertToken(db, { tokenHash: hashToken(token), role, namespace: 'default', source: 'generated', now });
      generated.push({ role, namespace: 'default', token });
    }
  }
  for (const stored of listTokens(db)) registry.add({ role: stored.role, namespace: stored.namespace, tokenHash: stored.tokenHash });
  return { registry, generated };
}
