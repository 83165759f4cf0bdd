/** Migration 002 on a real database file written by a v1 hub: runs gain `detached`, existing rows keep everything. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, schemaVersion, type Db } from '../../hub/store/db.js';
import { migration001 } from '../../hub/store/migrations/001-initial.js';
import { MIGRATIONS } from '../../hub/store/migrations/index.js';
import { getRun, insertRun, markLiveRunsDisconnected } from '../../hub/store/runs.js';

let dir: string | undefined;
let db: Db | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('migration 002 (detached runs)', () => {
  it('brings a v1 database with a live run to v2: the run reads back unchanged and not detached', () => {
    dir = mkdtempSync(join(tmpdir(), 'session-hub-migrate-'));
    const file = join(dir, 'hub.db');
    const v1 = openDatabase(file, { migrations: [migration001] });
    expect(schemaVersion(v1)).toBe(1);
    // the row exactly as a v1 hub wrote it (its INSERT had no detached column)
    v1.prepare(`INSERT INTO runs (run_id, sid, started_at, status, pid, resume_retried) VALUES ('r1', 's1', 1000, 'running', 4242, 1)`).run();
    v1.close();

    db = openDatabase(file);
    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
    expect(schemaVersion(db)).toBe(2);
    expect(getRun(db, 'r1')).toEqual({
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
    });

    // at boot the old run gets its grace as before; a new detached run does not
    insertRun(db, { runId: 'r2', sid: 's2', now: 2000, pid: null, detached: true });
    expect(markLiveRunsDisconnected(db, { at: 3000 })).toBe(1);
    expect(getRun(db, 'r1')!.disconnectedAt).toBe(3000);
    expect(getRun(db, 'r2')).toMatchObject({ detached: true, disconnectedAt: null });

    // opening again applies nothing twice
    db.close();
    db = openDatabase(file);
    expect(schemaVersion(db)).toBe(2);
    expect(getRun(db, 'r2')!.detached).toBe(true);
  });
});
