import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnHub, stopHubsAfterEach } from '../helpers/hub-process.js';

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

    expect(await first.stop()).toBe(0);
    expect(existsSync(join(first.dataDir, 'hub.lock'))).toBe(false);
    const second = await spawnHub({ dataDir: first.dataDir, env: SQLITE });
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
  });

  it('takes over the lock of a process that is gone (kill -9)', async () => {
    const first = await spawnHub({ env: SQLITE });
    await first.kill9();
    expect(existsSync(join(first.dataDir, 'hub.lock'))).toBe(true);
    const restarted = await spawnHub({ dataDir: first.dataDir, env: SQLITE });
    expect((await fetch(`${restarted.url}/healthz`)).status).toBe(200);
  });

  it('ignores a lock file that names no live process', async () => {
    const first = await spawnHub({ env: SQLITE });
    await first.stop();
    writeFileSync(join(first.dataDir, 'hub.lock'), 'not a pid\n');
    const second = await spawnHub({ dataDir: first.dataDir, env: SQLITE });
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
  });
});
