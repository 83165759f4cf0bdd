/**
 * The two store engines for tests of the store itself: better-sqlite3 on a temp file, and PostgreSQL
 * on a fresh database of the test server (test/setup/postgres-server.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
