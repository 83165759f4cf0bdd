/**
 * The two store engines for tests of the store itself: better-sqlite3 on a temp file, and PostgreSQL
 * on a fresh database of the test server (test/setup/postgres-server.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { PgStore } from '../../hub/store/postgres/pg-store.js';
import type { Store } from '../../hub/store/sql.js';
import { SqliteStore } from '../../hub/store/sqlite/sqlite-store.js';
import { createTestDatabase } from './postgres.js';

/** One database: `open` may be called several times (several hub processes on it); `cleanup` removes it. */
export interface EngineTarget {
  open(): Promise<Store>;
  cleanup(): Promise<void>;
}

export const STORE_ENGINES: { name: string; target: () => Promise<EngineTarget> }[] = [
  {
    name: 'sqlite',
    target: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'session-hub-engine-'));
      return {
        open: async () => SqliteStore.open(join(dir, 'hub.db')),
        cleanup: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'postgres',
    target: async () => {
      const db = await createTestDatabase();
      return { open: () => PgStore.open(db.url), cleanup: db.drop };
    },
  },
];

/**
 * In a `describe.each(STORE_ENGINES)` block: a store on a fresh database of `engine` for each test
 * (opened before it, closed and removed after). Returns its getter.
 */
export function storeForEachTest(engine: (typeof STORE_ENGINES)[number]): () => Store {
  let target: EngineTarget | undefined;
  let store: Store | undefined;
  beforeEach(async () => {
    target = await engine.target();
    store = await target.open();
  });
  afterEach(async () => {
    await store?.close();
    await target?.cleanup();
    store = undefined;
    target = undefined;
  });
  return () => {
    if (!store) throw new Error('storeForEachTest: the store exists only while a test runs');
    return store;
  };
}
