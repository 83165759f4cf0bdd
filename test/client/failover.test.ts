import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DashboardClient } from '../../shared/client/dashboard-client.js';
import { HubRequestError } from '../../shared/client/errors.js';
import { RunnerClient } from '../../shared/client/runner-client.js';
import { waitFor } from '../helpers/clients.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

const hubs: TestHub[] = [];
const clients: { close(): unknown }[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(hubs.splice(0).map((hub) => hub.close()));
});

async function hub(port?: number): Promise<TestHub> {
  const started = await startTestHub(port === undefined ? {} : { config: { port } });
  hubs.push(started);
  return started;
}

async function stopHub(stopped: TestHub): Promise<void> {
  hubs.splice(hubs.indexOf(stopped), 1);
  await stopped.close();
}

/** A loopback URL with nothing listening (a port that was free a moment ago). */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('SDK URL rotation', () => {
  it('connects to the first URL that answers: a dead one first, then a live hub', async () => {
    const live = await hub();
    const dead = await deadUrl();
    const runner = await RunnerClient.connect({ url: [dead, live.url], token: live.tokens.runner });
    clients.push(runner);
    const dashboard = await DashboardClient.connect({ url: [dead, live.url], token: live.tokens.dashboard });
    clients.push(dashboard);
    expect([runner.url, dashboard.url]).toEqual([live.url, live.url]);
    const { session } = await runner.startSession({ tag: 'rotated', flavor: 'claude', source: 'startup' });
    expect((await dashboard.subscribe({ sids: [session.sid] })).map((snapshot) => snapshot.sid)).toEqual([session.sid]);

    // a short-lived process (reconnection off) goes round the list once
    const once = await RunnerClient.connect({ url: [dead, live.url], token: live.tokens.runner, socketOptions: { reconnection: false } });
    clients.push(once);
    expect(once.url).toBe(live.url);
  });

  it('with reconnection off and no URL answering, rejects after one round, naming every URL', async () => {
    const dead = [await deadUrl(), await deadUrl()];
    const error = await RunnerClient.connect({ url: dead, token: 'any', socketOptions: { reconnection: false } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HubRequestError);
    expect(error).toMatchObject({ code: 'timeout', event: 'connect' });
    for (const url of dead) expect((error as Error).message).toContain(url);
  });

  it('a refused handshake on the first live URL is final: it does not move on to the next', async () => {
    const live = await hub();
    const other = await hub();
    const error = await RunnerClient.connect({ url: [live.url, other.url], token: 'not-a-token' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'unauthorized', event: 'connect' });
  });

  it('moves to the next URL when its hub goes away, and round robin back to the first when that one returns', async () => {
    const first = await hub();
    const second = await hub();
    const runner = await RunnerClient.connect({ url: [first.url, second.url], token: first.tokens.runner });
    clients.push(runner);
    const dashboard = await DashboardClient.connect({ url: [first.url, second.url], token: first.tokens.dashboard });
    clients.push(dashboard);
    await dashboard.subscribe();
    const reconnects = { runner: 0, dashboard: 0 };
    runner.on('reconnect', () => reconnects.runner++);
    dashboard.on('reconnect', () => reconnects.dashboard++);
    expect([runner.url, dashboard.url]).toEqual([first.url, first.url]);

    const firstPort = first.port;
    await stopHub(first);
    await waitFor(() => reconnects.runner === 1 && reconnects.dashboard === 1, 10_000, 'both clients on the second hub');
    expect([runner.url, dashboard.url]).toEqual([second.url, second.url]);
    expect(runner.socket.connected && dashboard.socket.connected).toBe(true);

    // the second goes too; while neither answers the clients keep going round; the first comes back
    await stopHub(second);
    await waitFor(() => !runner.socket.connected && !dashboard.socket.connected, 5000, 'both disconnected');
    const back = await hub(firstPort);
    await waitFor(() => reconnects.runner === 2 && reconnects.dashboard === 2, 15_000, 'both clients back on the first URL');
    expect([runner.url, dashboard.url]).toEqual([back.url, back.url]);
    // the clients work there
    const { session } = await runner.startSession({ tag: 'after-rotation', flavor: 'claude', source: 'startup' });
    await waitFor(() => dashboard.sessions.has(session.sid), 5000, 'the new session on the dashboard');
  });
});
