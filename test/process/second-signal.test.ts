import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectDashboard, connectRunner, startSession } from '../helpers/clients.js';
import { dataDirLockFree, spawnHub, stopHubsAfterEach } from '../helpers/hub-process.js';

stopHubsAfterEach();

/** A second Ctrl-C while the hub stops (an impatient user) must not cut the stop short. */
describe('a second SIGINT during shutdown', () => {
  it('the stop still finishes: exit 0, hub.lock released, the data kept', async () => {
    const hub = await spawnHub({ env: { SESSION_HUB_DATABASE_URL: '' } });
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    await connectDashboard(hub.url, hub.tokens.dashboard);
    const { sid } = await startSession(runner);
    const exited = new Promise<number | null>((resolve) => hub.child.once('exit', (code) => resolve(code)));
    hub.child.kill('SIGINT');
    hub.child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(hub.output()).toContain('stopped');
    expect(dataDirLockFree(hub.dataDir)).toBe(true);

    const restarted = await spawnHub({ dataDir: hub.dataDir, env: { SESSION_HUB_DATABASE_URL: '' } });
    const response = await fetch(`${restarted.url}/api/sessions/${sid}`, { headers: { authorization: `Bearer ${restarted.tokens.runner}` } });
    expect(response.status).toBe(200);
  });
});
