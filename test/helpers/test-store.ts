import { createTestDatabase, type TestDatabase } from './postgres.js';

/**
 * Which store the test hubs run on: SQLite (the default) or, with SESSION_HUB_TEST_STORE=postgres,
 * a fresh PostgreSQL database per hub data directory (vitest.config.ts's `postgres` project runs the
 * protocol suites that way). A restart passes the same data directory, so it finds the same database.
 */
export const testStoreEngine: 'sqlite' | 'postgres' = process.env.SESSION_HUB_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

const databases = new Map<string, Promise<TestDatabase>>();

/** The SESSION_HUB_DATABASE_URL for a hub on `dataDir`, or undefined on SQLite. */
export async function databaseUrlFor(dataDir: string): Promise<string | undefined> {
  if (testStoreEngine === 'sqlite') return undefined;
  let database = databases.get(dataDir);
  if (!database) databases.set(dataDir, (database = createTestDatabase()));
  return (await database).url;
}

/** Drops the database of `dataDir` (when the data directory itself goes). */
export async function releaseDatabaseOf(dataDir: string): Promise<void> {
  const database = databases.get(dataDir);
  if (!database) return;
  databases.delete(dataDir);
  await (await database).drop();
}
