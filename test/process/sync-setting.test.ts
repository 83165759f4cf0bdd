import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../hub/store/sqlite/sqlite-store.js';
import { runCli } from '../helpers/cli.js';
import { spawnHub, stopHubsAfterEach } from '../helpers/hub-process.js';

stopHubsAfterEach();

const SQLITE = { SESSION_HUB_DATABASE_URL: '' };

describe('SESSION_HUB_SYNC', () => {
  it('full: SQLite runs synchronous=FULL (the default stays NORMAL)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'session-hub-sync-'));
    try {
      const full = SqliteStore.open(join(dir, 'full.db'), { synchronous: 'full' });
      const normal = SqliteStore.open(join(dir, 'normal.db'));
      // PRAGMA synchronous: 1 = NORMAL, 2 = FULL
      expect([full.db.pragma('synchronous', { simple: true }), normal.db.pragma('synchronous', { simple: true })]).toEqual([2, 1]);
      full.db.close();
      normal.db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the real process says which setting it runs with, and refuses an unknown one naming the variable', async () => {
    const hub = await spawnHub({ env: { ...SQLITE, SESSION_HUB_SYNC: 'full' } });
    expect(hub.output()).toMatch(/"sync":"full".*session hub listening/);
    expect((await fetch(`${hub.url}/healthz`)).status).toBe(200);
    const bad = await runCli(['start'], { env: { SESSION_HUB_SYNC: 'always', SESSION_HUB_PORT: '0', SESSION_HUB_DATA: hub.dataDir } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('SESSION_HUB_SYNC');
  });
});
