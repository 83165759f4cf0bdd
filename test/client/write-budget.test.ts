import { afterEach, describe, expect, it } from 'vitest';
import { HubRequestError } from '../../shared/client/errors.js';
import { RunnerClient } from '../../shared/client/runner-client.js';
import { spawnHub, stopHubsAfterEach } from '../helpers/hub-process.js';

stopHubsAfterEach();
const clients: RunnerClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

const nextMacrotask = () => new Promise((resolve) => setImmediate(resolve));

describe('RunnerClient write budget', () => {
  it('counts timeoutMs from the call: writes queued behind one another while the hub is down all give up with the first', async () => {
    const hub = await spawnHub();
    const runner = await RunnerClient.connect({ url: hub.url, token: hub.tokens.runner, requestTimeoutMs: 200 });
    clients.push(runner);
    const { session } = await runner.startSession({ tag: 'budget', flavor: 'claude', source: 'startup', metadata: { path: '/p' } });
    await hub.kill9();

    // three writes to one document, called together: they run one at a time (one lock per document)
    const settled: string[] = [];
    const writes = [1, 2, 3].map((n) =>
      runner.updateMetadata(session.sid, (m) => ({ ...m, n }), { timeoutMs: 600 }).then(
        () => settled.push(`${n}:ok`),
        (error: unknown) => settled.push(`${n}:${error instanceof HubRequestError ? error.code : String(error)}`),
      ),
    );
    await writes[0];
    await nextMacrotask();
    // each call had 600 ms from when it was made: when the first gave up, so had the others
    expect(settled).toEqual(['1:timeout', '2:timeout', '3:timeout']);
    await Promise.all(writes);
  });
});
