/**
 * Another connection on the same SQLite file (the offline CLI, `sqlite3` opened by hand) holds the
 * write lock (issue 26, point 1): the store's transaction fails with StoreUnavailable after its lock
 * wait, without blocking the event loop meanwhile; reads go on; the next transaction runs; close()
 * returns. The real-hub version of this is test/reliability/store-busy.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SqliteStore } from '../../hub/store/sqlite/sqlite-store.js';
import { StoreUnavailable } from '../../hub/store/unavailable.js';

const INSERT = `INSERT INTO namespaces (name, last_seq) VALUES (@name, 0)`;
const NAMES = `SELECT name FROM namespaces ORDER BY name`;

let dir: string;
let store: SqliteStore;
let other: Database.Database;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'session-hub-busy-'));
  store = SqliteStore.open(join(dir, 'hub.db'), { lockWaitMs: 300 });
  other = new Database(join(dir, 'hub.db'));
});

afterEach(async () => {
  if (other.open) other.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

it('fails the transaction that cannot get the write lock, then runs the next one', async () => {
  await store.transaction((tx) => tx.run(INSERT, { name: 'before' }));
  other.exec('BEGIN IMMEDIATE');

  let ticks = 0;
  const ticker = setInterval(() => ticks++, 5);
  const blocked = store.transaction((tx) => tx.run(INSERT, { name: 'blocked' })).then(
    () => undefined,
    (error: unknown) => error,
  );
  // while it waits for the lock, reads answer and the event loop runs
  expect((await store.all<{ name: string }>(NAMES)).map((row) => row.name)).toEqual(['before']);
  const error = await blocked;
  clearInterval(ticker);
  expect(error).toBeInstanceOf(StoreUnavailable);
  expect((error as StoreUnavailable).reason).toMatch(/locked/);
  expect(((error as Error).cause as { code?: string }).code).toMatch(/^SQLITE_BUSY/);
  // the old busy_timeout wait blocked the whole process for its 5 s: not one timer ran
  expect(ticks).toBeGreaterThan(3);

  other.exec('ROLLBACK');
  await store.transaction((tx) => tx.run(INSERT, { name: 'after' }));
  expect((await store.all<{ name: string }>(NAMES)).map((row) => row.name)).toEqual(['after', 'before']);
});

it('a queued transaction runs after one whose BEGIN failed, and close() returns', async () => {
  other.exec('BEGIN IMMEDIATE');
  const first = store.transaction((tx) => tx.run(INSERT, { name: 'first' }));
  const second = store.transaction((tx) => tx.run(INSERT, { name: 'second' }));
  await expect(first).rejects.toBeInstanceOf(StoreUnavailable);
  other.exec('ROLLBACK');
  await expect(second).resolves.toEqual({ changes: 1 });
  await store.close();
  // close twice is what afterEach does: reopen so it has a store to close
  store = SqliteStore.open(join(dir, 'hub.db'));
  expect((await store.all<{ name: string }>(NAMES)).map((row) => row.name)).toEqual(['second']);
});
