/**
 * Migration 006 on both engines: tokens stored before it get their public id (the start of their
 * hash) and no expiry, revocation or last use; revoke and last use then work on them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PgStore } from '../../hub/store/postgres/pg-store.js';
import { PG_MIGRATIONS } from '../../hub/store/postgres/migrations/index.js';
import { MIGRATIONS } from '../../hub/store/sqlite/migrations/index.js';
import { SqliteStore } from '../../hub/store/sqlite/sqlite-store.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { listTokens, listValidTokens, revokeToken, touchTokens } from '../../hub/store/tokens.js';
import type { Store } from '../../hub/store/sql.js';

/** A database on one engine, opened at a given list of migrations. */
const engines: [string, () => Promise<{ openAt(migrations?: readonly string[]): Promise<Store>; cleanup(): Promise<void> }>][] = [
  ['sqlite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'session-hub-token-migration-'));
    return { openAt: async (migrations) => SqliteStore.open(join(dir, 'hub.db'), { migrations }), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }],
  ['postgres', async () => {
    const db = await createTestDatabase();
    return { openAt: (migrations) => PgStore.open(db.url, { migrations }), cleanup: db.drop };
  }],
];
const cleanups: (() => Promise<void>)[] = [];

const HASH = 'ab'.repeat(32);
const T = 1_700_000_000_123;
let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe.each(engines)('%s: migration 006 (token lifecycle)', (name, engine) => {
  it('gives a token stored before it an id; revoke and last use work on it', async () => {
    const target = await engine();
    cleanups.push(target.cleanup);
    const v5 = await target.openAt((name === 'sqlite' ? MIGRATIONS : PG_MIGRATIONS).slice(0, 5));
    await v5.run(`INSERT INTO tokens (token_hash, role, namespace, created_at, source) VALUES (@h, 'runner', 'default', @t, 'cli')`, { h: HASH, t: T });
    await v5.close();
    store = await target.openAt();
    expect(await listTokens(store)).toEqual([
      { id: HASH.slice(0, 12), label: null, tokenHash: HASH, role: 'runner', namespace: 'default', source: 'cli', createdAt: T, expiresAt: null, revokedAt: null, lastUsedAt: null },
    ]);
    await touchTokens(store, new Map([[HASH, T + 5]]));
    await touchTokens(store, new Map([[HASH, T + 1]])); // an older use, reported late by another process
    expect((await listTokens(store))[0]!.lastUsedAt).toBe(T + 5);
    expect(await listValidTokens(store, T + 10)).toHaveLength(1);
    await revokeToken(store, { id: HASH.slice(0, 12), now: T + 10 });
    expect(await listValidTokens(store, T + 10)).toEqual([]);
    expect((await listTokens(store))[0]!.revokedAt).toBe(T + 10);
  });
});
