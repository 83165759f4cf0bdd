/**
 * For CLI commands that work on the database directly (doctor, repair, token): the hub's configuration
 * and an open database, refusing to create one where none exists (a typo in --data, or in the
 * database name of SESSION_HUB_DATABASE_URL, must not look clean).
 */
import { existsSync } from 'node:fs';
import { systemClock } from '../clock.js';
import { loadConfig, type HubConfig } from '../config.js';
import { createLogger } from '../log.js';
import type { HubDeps } from '../services/deps.js';
import { describeStore, openStore } from '../store/open-store.js';
import { NoHubSchema } from '../store/postgres/migrate.js';
import { PgStore } from '../store/postgres/pg-store.js';
import type { Store } from '../store/sql.js';

/** A usage problem: printed without a stack, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * Runs a command body, turning usage mistakes (unknown flag, missing database) into a message with
 * the way out and exit code 2, so scripts can tell them from "problems found" (1).
 */
export async function withUsageErrors(command: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (error instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
      process.stderr.write(`session-hub ${command}: ${(error as Error).message}\nRun "session-hub ${command} --help" for usage.\n`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
}

/** The hub's store: PostgreSQL when SESSION_HUB_DATABASE_URL is set, else the SQLite file under --data. */
export async function openExistingStore(dataDir: string | undefined): Promise<{ store: Store; config: HubConfig; where: string }> {
  const config = loadConfig(process.env, { dataDir, logLevel: 'silent' });
  if (config.databaseUrl === undefined && !existsSync(config.databaseFile)) {
    throw new UsageError(
      `no hub database at ${config.databaseFile}; pass --data DIR (the hub's data directory, SESSION_HUB_DATA; default ./data)`,
    );
  }
  const where = describeStore(config);
  if (config.databaseUrl === undefined) return { store: await openStore(config, createLogger('silent')), config, where };
  try {
    return { store: await PgStore.open(config.databaseUrl, { existingOnly: true }), config, where };
  } catch (error) {
    if (!((error as Error).cause instanceof NoHubSchema)) throw error;
    throw new UsageError(`no hub database at ${where} (it has no hub schema); check the database name in SESSION_HUB_DATABASE_URL`);
  }
}

/**
 * Services over the database without sockets. Writes made here are stored with their events (a
 * running hub replays them to clients that reconnect) but are not pushed live to connected sockets.
 */
export function offlineDeps(store: Store, config: HubConfig): HubDeps {
  return { store, hubId: `cli-${process.pid}`, clock: systemClock, config, log: createLogger('silent'), publisher: { publish: () => {} } };
}

/** "3h 12m ago"-style age, for people. */
export function age(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return `${Math.max(0, Math.floor(ms / 1000))}s`;
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ${minutes % 60}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}
