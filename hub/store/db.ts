import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations/index.js';

export type Db = Database.Database;

/**
 * Opens (creating if needed) the hub database in WAL mode and applies pending migrations.
 * synchronous=NORMAL in WAL mode: a committed transaction is in the WAL file before the call
 * returns, so it survives a crash of the hub process (not of the machine; see docs/durability).
 */
export function openDatabase(file: string, options: { migrations?: readonly string[] } = {}): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db, options.migrations ?? MIGRATIONS);
  return db;
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Applies each migration above the database's user_version, each in its own transaction. */
export function migrate(db: Db, migrations: readonly string[]): void {
  const current = schemaVersion(db);
  if (current > migrations.length) {
    throw new Error(`database schema v${current} is newer than this hub (v${migrations.length}); upgrade the hub`);
  }
  for (let version = current + 1; version <= migrations.length; version++) {
    db.transaction(() => {
      db.exec(migrations[version - 1]!);
      db.pragma(`user_version = ${version}`);
    })();
  }
}

const statementCache = new WeakMap<Db, Map<string, Database.Statement>>();

/** A statement prepared once per database. */
export function stmt(db: Db, sql: string): Database.Statement {
  let cache = statementCache.get(db);
  if (!cache) statementCache.set(db, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) cache.set(sql, (statement = db.prepare(sql)));
  return statement;
}
