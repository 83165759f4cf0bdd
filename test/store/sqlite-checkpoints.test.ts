/**
 * WAL checkpoints on a worker thread (hub/store/sqlite/checkpointer.ts): the writer connection never
 * checkpoints itself, yet committed pages reach the database file, and an idle store's WAL file is
 * given back; committed rows are readable throughout and after close.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SqliteStore } from '../../hub/store/sqlite/sqlite-store.js';
import { waitFor } from '../helpers/clients.js';

const INSERT = `INSERT INTO namespaces (name, last_seq) VALUES (@name, @seq)`;
const COUNT = `SELECT COUNT(*) AS n FROM namespaces WHERE name LIKE 'ns-%'`;

let dir: string;
let store: SqliteStore | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'session-hub-checkpoints-'));
});

afterEach(async () => {
  await store?.close();
  store = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function writeRows(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await store!.transaction((tx) => tx.run(INSERT, { name: `ns-${i}-${'x'.repeat(500)}`, seq: i }));
  }
}

it('copies committed pages into the database file and truncates the WAL once the store is idle', async () => {
  const file = join(dir, 'hub.db');
  store = SqliteStore.open(file, { checkpoints: { pollMs: 10, everyCommits: 20, idleMs: 100, restartFrames: 1_000 } });
  expect(await store.get<{ wal_autocheckpoint: number }>('PRAGMA wal_autocheckpoint')).toEqual({ wal_autocheckpoint: 0 });
  await writeRows(200);
  await waitFor(() => statSync(`${file}-wal`).size === 0, 5_000, 'the idle WAL to be truncated');

  // the database file alone (no WAL next to it) holds every committed row
  const copy = join(dir, 'copy.db');
  copyFileSync(file, copy);
  expect(existsSync(`${copy}-wal`)).toBe(false);
  const reader = new Database(copy, { readonly: true });
  try {
    expect(reader.prepare(COUNT).get()).toEqual({ n: 200 });
  } finally {
    reader.close();
  }
  expect(await store.get(COUNT)).toEqual({ n: 200 });
});

it('closes the worker with the store: the rows are there when the file is opened again', async () => {
  const file = join(dir, 'hub.db');
  store = SqliteStore.open(file);
  await writeRows(50);
  await store.close();
  store = SqliteStore.open(file);
  expect(await store.get(COUNT)).toEqual({ n: 50 });
});
