/**
 * Migrations 002, 003 and 004 on a real database file written by an older hub: runs gain `detached`,
 * then `hub_id` and the `hubs` table appear, then metadata_history becomes a rowid table; existing
 * rows keep everything.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordHubHeartbeat } from '../../hub/store/hubs.js';
import { getRun, insertRun, markLiveRunsDisconnected } from '../../hub/store/runs.js';
import { migration001 } from '../../hub/store/sqlite/migrations/001-initial.js';
import { migration002 } from '../../hub/store/sqlite/migrations/002-detached-runs.js';
import { migration003 } from '../../hub/store/sqlite/migrations/003-cluster.js';
import { getHistoryVersion, insertHistory, listHistory } from '../../hub/store/history.js';
import { MIGRATIONS } from '../../hub/store/sqlite/migrations/index.js';
import { SqliteStore } from '../../hub/store/sqlite/sqlite-store.js';

let dir: string | undefined;
let store: SqliteStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function tempFile(): string {
  dir = mkdtempSync(join(tmpdir(), 'session-hub-migrate-'));
  return join(dir, 'hub.db');
}

/** Column names of a table, read from the file's schema. */
function columns(opened: SqliteStore, table: string): string[] {
  return (opened.db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name);
}

function tables(opened: SqliteStore): string[] {
  return (opened.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as { name: string }[]).map((t) => t.name);
}

describe('migration 002 (detached runs)', () => {
  it('brings a v1 database with a live run to v2: the run reads back unchanged and not detached', async () => {
    const file = tempFile();
    const v1 = SqliteStore.open(file, { migrations: [migration001] });
    expect(await v1.schemaVersion()).toBe(1);
    // the row exactly as a v1 hub wrote it (its INSERT had no detached column)
    v1.db.prepare(`INSERT INTO runs (run_id, sid, started_at, status, pid, resume_retried) VALUES ('r1', 's1', 1000, 'running', 4242, 1)`).run();
    await v1.close();

    store = SqliteStore.open(file, { migrations: [migration001, migration002] });
    expect(await store.schemaVersion()).toBe(2);
    expect(columns(store, 'runs')).toContain('detached');
    expect(store.db.prepare(`SELECT detached, pid, resume_retried FROM runs WHERE run_id = 'r1'`).get()).toEqual({ detached: 0, pid: 4242, resume_retried: 1 });
    await store.close();

    // on to the current schema: the run reads back unchanged
    store = SqliteStore.open(file);
    expect(await store.schemaVersion()).toBe(MIGRATIONS.length);
    expect(await getRun(store, 'r1')).toEqual({
      runId: 'r1',
      sid: 's1',
      startedAt: 1000,
      status: 'running',
      endedAt: null,
      reason: null,
      pid: 4242,
      disconnectedAt: null,
      resumeRetried: true,
      detached: false,
      agentAliveAt: null,
    });

    // at boot the old run gets its grace as before; a new detached run does not
    await store.transaction(async (tx) => {
      await insertRun(tx, { runId: 'r2', sid: 's2', now: 2000, pid: null, detached: true, hubId: null });
      expect(await markLiveRunsDisconnected(tx, { at: 3000 })).toBe(1);
    });
    expect((await getRun(store, 'r1'))!.disconnectedAt).toBe(3000);
    expect(await getRun(store, 'r2')).toMatchObject({ detached: true, disconnectedAt: null });

    // opening again applies nothing twice
    await store.close();
    store = SqliteStore.open(file);
    expect(await store.schemaVersion()).toBe(MIGRATIONS.length);
    expect((await getRun(store, 'r2'))!.detached).toBe(true);
  });
});

describe('migration 003 (cluster: hubs and runs.hub_id)', () => {
  it('brings a v2 database with a live run to v3: hubs table and runs.hub_id appear, the run is kept with no hub', async () => {
    const file = tempFile();
    const v2 = SqliteStore.open(file, { migrations: [migration001, migration002] });
    expect(await v2.schemaVersion()).toBe(2);
    expect(tables(v2)).not.toContain('hubs');
    expect(columns(v2, 'runs')).not.toContain('hub_id');
    // the row exactly as a v2 hub wrote it
    v2.db.prepare(`INSERT INTO runs (run_id, sid, started_at, status, pid, detached) VALUES ('r1', 's1', 1000, 'running', 4242, 0)`).run();
    await v2.close();

    store = SqliteStore.open(file, { migrations: [migration001, migration002, migration003] });
    expect(await store.schemaVersion()).toBe(3);
    expect(tables(store)).toContain('hubs');
    expect(columns(store, 'hubs')).toEqual(['hub_id', 'started_at', 'heartbeat_at']);
    expect(columns(store, 'runs')).toContain('hub_id');
    // a run from before hubs were recorded belongs to no hub
    expect(store.db.prepare(`SELECT hub_id FROM runs WHERE run_id = 'r1'`).get()).toEqual({ hub_id: null });
    expect(await getRun(store, 'r1')).toMatchObject({ runId: 'r1', status: 'running', pid: 4242, detached: false, disconnectedAt: null });

    // the new schema is usable: a hub heartbeats, a run records the hub holding its socket
    await store.transaction(async (tx) => {
      await recordHubHeartbeat(tx, { hubId: 'hub-a', now: 5000 });
      await recordHubHeartbeat(tx, { hubId: 'hub-a', now: 6000 });
      await insertRun(tx, { runId: 'r2', sid: 's2', now: 5000, pid: null, hubId: 'hub-a' });
    });
    expect(store.db.prepare(`SELECT hub_id, started_at, heartbeat_at FROM hubs`).all()).toEqual([{ hub_id: 'hub-a', started_at: 5000, heartbeat_at: 6000 }]);
    expect(store.db.prepare(`SELECT hub_id FROM runs WHERE run_id = 'r2'`).get()).toEqual({ hub_id: 'hub-a' });

    // opening again applies nothing twice
    await store.close();
    store = SqliteStore.open(file, { migrations: [migration001, migration002, migration003] });
    expect(await store.schemaVersion()).toBe(3);
    expect(store.db.prepare(`SELECT COUNT(*) AS n FROM hubs`).get()).toEqual({ n: 1 });
  });
});

describe('migration 004 (metadata_history as a rowid table)', () => {
  const entry = (version: number, at: number) => ({ version, at, by: 'runner' as const, carried: [], cleared: ['x'], dropped: [], metadata: { n: version } });

  it('keeps every history row of a v3 database, still one row per (sid, version), read back in version order', async () => {
    const file = tempFile();
    const v3 = SqliteStore.open(file, { migrations: [migration001, migration002, migration003] });
    await v3.transaction(async (tx) => {
      for (const version of [1, 2, 3]) for (const sid of ['s1', 's2']) await insertHistory(tx, { sid, ...entry(version, version * 1000) });
    });
    expect(v3.db.prepare(`SELECT sql FROM sqlite_master WHERE name = 'metadata_history'`).get()).toMatchObject({ sql: expect.stringContaining('WITHOUT ROWID') });
    await v3.close();

    store = SqliteStore.open(file);
    expect(await store.schemaVersion()).toBe(MIGRATIONS.length);
    expect(store.db.prepare(`SELECT sql FROM sqlite_master WHERE name = 'metadata_history'`).get()).toMatchObject({ sql: expect.not.stringContaining('WITHOUT ROWID') });
    expect(columns(store, 'metadata_history')).toEqual(['sid', 'version', 'at', 'by', 'carried', 'cleared', 'dropped', 'metadata']);
    expect(await listHistory(store, 's1')).toEqual([entry(1, 1000), entry(2, 2000), entry(3, 3000)]);
    expect(await listHistory(store, 's2')).toHaveLength(3);
    expect(await getHistoryVersion(store, { sid: 's2', version: 2 })).toEqual(entry(2, 2000));

    // (sid, version) is still unique, and new versions append
    await expect(store.transaction((tx) => insertHistory(tx, { sid: 's1', ...entry(3, 9000) }))).rejects.toThrow(/UNIQUE/);
    await store.transaction((tx) => insertHistory(tx, { sid: 's1', ...entry(4, 4000) }));
    expect((await listHistory(store, 's1')).map((h) => h.version)).toEqual([1, 2, 3, 4]);
    // the lookups use the index, not a scan of every session's history
    const plan = store.db.prepare(`EXPLAIN QUERY PLAN SELECT * FROM metadata_history WHERE sid = 's1' ORDER BY version`).all() as { detail: string }[];
    expect(plan.map((p) => p.detail).join(' ')).toContain('USING INDEX metadata_history_by_version');
  });
});
