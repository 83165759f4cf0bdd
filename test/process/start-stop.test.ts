import { describe, expect, it } from 'vitest';
import { closeAllClients, connectRunner, startSession } from '../helpers/clients.js';
import { spawnHub, stopHubsAfterEach, type HubProcess } from '../helpers/hub-process.js';

let hub: HubProcess | undefined;
stopHubsAfterEach();

describe('the hub process', () => {
  it('serves /healthz without a token and stops cleanly on SIGTERM', async () => {
    hub = await spawnHub();
    const response = await fetch(`${hub.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect(await hub.stop()).toBe(0);
    expect(hub.output()).toContain('stopped');
  });

  it('keeps data and keeps seq rising across a restart', async () => {
    hub = await spawnHub();
    const dataDir = hub.dataDir;
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner);
    closeAllClients();
    await hub.stop();

    const restarted = await spawnHub({ dataDir });
    try {
      const response = await fetch(`${restarted.url}/api/sessions/${session.sid}`, { headers: { authorization: `Bearer ${restarted.tokens.runner}` } });
      expect(response.status).toBe(200);
      expect((await response.json()).metadata.value.claudeSessionId).toBe('claude-abc');
    } finally {
      await restarted.stop();
      await hub.cleanup();
    }
  });
});
