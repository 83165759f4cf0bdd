import type pg from 'pg';
import { MIGRATION_LOCK_KEY } from './advisory-locks.js';

const CREATE_TRACKING = `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`;
const CURRENT_VERSION = `SELECT COALESCE(MAX(version), 0) AS version FROM schema_migrations`;

/**
 * Applies each migration above the database's version, each in its own transaction with its
 * `schema_migrations` row. Several hub processes may start at once against a fresh database: the
 * first takes the migration lock and migrates, the others wait for it, then find nothing to do.
 */
export async function migrate(client: pg.ClientBase, migrations: readonly string[], now = Date.now): Promise<number> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
  try {
    await client.query(CREATE_TRACKING);
    const current = await currentVersion(client);
    if (current > migrations.length) {
      throw new Error(`database schema v${current} is newer than this hub (v${migrations.length}); upgrade the hub`);
    }
    for (let version = current + 1; version <= migrations.length; version++) {
      await client.query('BEGIN');
      try {
        await client.query(migrations[version - 1]!);
        await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [version, now()]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${version} failed: ${(error as Error).message}`, { cause: error });
      }
    }
    return Math.max(current, migrations.length);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
  }
}

/** The database holds no hub schema at all (see PgStoreOptions.existingOnly). */
export class NoHubSchema extends Error {
  constructor() {
    super('the database has no hub schema');
    this.name = 'NoHubSchema';
  }
}

/** Whether any hub has migrated this database (its `schema_migrations` table exists). */
export async function hasHubSchema(client: Pick<pg.ClientBase, 'query'>): Promise<boolean> {
  const result = await client.query<{ found: boolean }>(`SELECT to_regclass('schema_migrations') IS NOT NULL AS found`);
  return result.rows[0]!.found;
}

export async function currentVersion(client: Pick<pg.ClientBase, 'query'>): Promise<number> {
  const result = await client.query<{ version: number }>(CURRENT_VERSION);
  return Number(result.rows[0]!.version);
}
