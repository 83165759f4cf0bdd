import type { HubConfig } from '../config.js';
import { withoutPassword, type Logger } from '../log.js';
import { PgStore } from './postgres/pg-store.js';
import type { Store } from './sql.js';
import { SqliteStore } from './sqlite/sqlite-store.js';

/** Where the store lives, for logs and messages: the SQLite file, or the PostgreSQL URL without its password. */
export function describeStore(config: HubConfig): string {
  return config.databaseUrl === undefined ? config.databaseFile : withoutPassword(config.databaseUrl);
}

/**
 * Opens the configured store and brings its schema up to date: PostgreSQL when
 * SESSION_HUB_DATABASE_URL is set (several hub processes may share it), else the SQLite file under
 * the data directory.
 */
export async function openStore(config: HubConfig, log: Logger): Promise<Store> {
  if (config.databaseUrl !== undefined) return PgStore.open(config.databaseUrl, { log });
  return SqliteStore.open(config.databaseFile, { log, synchronous: config.sync });
}
