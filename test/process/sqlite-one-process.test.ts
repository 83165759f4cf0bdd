import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataDirLockFree, spawnHub, stopHubsAfterEach } from '../helpers/hub-process.js';

stopHubsAfterEach();

/** SQLite, whatever store the test project runs the other tests on. */
const SQLITE = { SESSION_HUB_DATABASE_URL: '' };

describe('one hub process per SQLite data directory', () => {
  it('refuses a second process on the same data directory, naming the first and the way out; starts once the first stopped', async () => {
    const first = await spawnHub({ env: SQLITE });
    const refused = await spawnHub({ dataDir: first.dataDir, env: SQLITE }).then(
      () => 'started',
      (error: Error) => error.message,
    );
    expect(refused).toContain(`another hub process (pid ${first.child.pid}) is serving ${first.dataDir}`);
    expect(refused).toContain('SESSION_HUB_DATABASE_URL');

    expect(dataDirLockFree(first.dataDir)).toBe(false);
    expect(await first.stop()).toBe(0);
    expect(dataDirLockFree(first.dataDir)).toBe(true);
    const second = await spawnHub({ dataDir: first.dataDir, env: SQLITE });
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
  });

  it('restarts at once after kill -9: the OS released the lock with the process (no pid check, no wait for the zombie to be reaped)', async () => {
    const first = await spawnHub({ env: SQLITE });
    const killedAt = Date.now();
    first.child.kill('SIGKILL');
    // started without waiting for the exit to be reported: within 100 ms of the kill
    const restarting = spawnHub({ dataDir: first.dataDir, env: SQLITE });
    expect(Date.now() - killedAt).toBeLessThan(100);
    const restarted = await restarting;
    expect(existsSync(join(first.dataDir, 'hub.lock'))).toBe(true);
    expect((await fetch(`${restarted.url}/healthz`)).status).toBe(200);
  });

  it('replaces a hub.lock left by an older hub (a pid in plain text)', async () => {
    const first = await spawnHub({ env: SQLITE });
    await first.stop();
    writeFileSync(join(first.dataDir, 'hub.lock'), 'not a pid\n');
    const second = await spawnHub({ dataDir: first.dataDir, env: SQLITE });
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
  });
});
