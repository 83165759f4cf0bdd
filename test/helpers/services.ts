import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../hub/clock.js';
import { loadConfig } from '../../hub/config.js';
import { createLogger } from '../../hub/log.js';
import type { Actor, HubDeps, OutgoingEvent, Publisher } from '../../hub/services/deps.js';
import type { Store } from '../../hub/store/sql.js';
import { SqliteStore } from '../../hub/store/sqlite/sqlite-store.js';

/**
 * The hub's services on a real SQLite file (or `:memory:`) without sockets: `published` collects
 * what the services hand to the delivery layer after each commit, so tests can check it.
 */
export interface ServiceHarness {
  deps: HubDeps;
  /** The same store as `deps.store`, with the raw better-sqlite3 handle (`store.db`) for inspection. */
  store: SqliteStore;
  clock: ManualClock;
  published: OutgoingEvent[];
  close(): Promise<void>;
}

/**
 * `file: ':memory:'` for no file at all; otherwise a fresh database file (WAL and all) in a temp
 * directory under `parentDir` (default: the OS temp dir).
 */
export function openServices(options: { file?: ':memory:'; parentDir?: string } = {}): ServiceHarness {
  const dir = options.file ? undefined : mkdtempSync(join(options.parentDir ?? tmpdir(), 'session-hub-store-'));
  const config = loadConfig({}, { dataDir: dir ?? tmpdir(), logLevel: 'silent' });
  const store = SqliteStore.open(options.file ?? config.databaseFile);
  const clock = new ManualClock(1_700_000_000_000);
  const published: OutgoingEvent[] = [];
  const publisher: Publisher = { publish: (events) => void published.push(...events) };
  const deps: HubDeps = { store, hubId: 'test-hub', clock, config, log: createLogger('silent'), publisher };
  return {
    deps,
    store,
    clock,
    published,
    async close() {
      await store.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A runner of namespace `default` (or another), as the socket layer builds it. */
/** The hub's services on a store a test opened itself (PostgreSQL), publishing into `published`. */
export function depsOnStore(store: Store, published: OutgoingEvent[] = []): HubDeps {
  return {
    store,
    hubId: 'test-hub',
    clock: new ManualClock(1_700_000_000_000),
    config: loadConfig({}, { logLevel: 'silent' }),
    log: createLogger('silent'),
    publisher: { publish: (events) => void published.push(...events) },
  };
}

export function runnerActor(namespace = 'default', socketId = 'socket-1'): Actor {
  return { namespace, role: 'runner', by: 'runner', socketId };
}
