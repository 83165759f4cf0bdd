import { io, type Socket } from 'socket.io-client';
import { describe, expect, it } from 'vitest';
import { connectDashboard, connectRunner, startSession, waitFor } from '../helpers/clients.js';
import { closeTestHubsAfterEach, startTestHub, type TestHub } from '../helpers/hub.js';
import { sample, scrape } from './metrics-text.js';

closeTestHubsAfterEach();

/** Cuts a client's TCP connection with no close frame, as a crashed process or a dead network does. */
function cut(socket: Socket): void {
  const transport = socket.io.engine.transport as unknown as { ws: { _socket: { destroy(): void } } };
  transport.ws._socket.destroy();
}

/** Opens a client and cuts it right after its namespace CONNECT went out: mid-handshake. */
function cutMidHandshake(hub: TestHub, namespace: string, token: string): Promise<void> {
  const socket = io(`${hub.url}${namespace}`, { auth: { token }, transports: ['websocket'], reconnection: false, forceNew: true });
  return new Promise((resolve) => {
    // the manager's own listener (registered first) sends the namespace CONNECT on open
    socket.io.once('open', () => {
      cut(socket);
      resolve();
    });
  });
}

const gauge = async (hub: TestHub, kind: string) => sample(await scrape(hub.url), 'session_hub_connected_clients', { kind });

describe('the connected-clients gauge after abrupt disconnects', () => {
  it('returns to 0 for runners and dashboards, and a runner cut mid-handshake binds nothing', async () => {
    const hub = await startTestHub();
    const runners = await Promise.all([1, 2, 3].map(() => connectRunner(hub.url, hub.tokens.runner)));
    const sessions = await Promise.all(runners.map((runner) => startSession(runner)));
    const dashboards = await Promise.all([1, 2].map(() => connectDashboard(hub.url, hub.tokens.dashboard)));
    expect(await gauge(hub, 'runner')).toBe(3);
    expect(await gauge(hub, 'dashboard')).toBe(2);

    await Promise.all([
      ...[1, 2, 3, 4, 5].map(() => cutMidHandshake(hub, '/runner', hub.tokens.runner)),
      ...[1, 2, 3].map(() => cutMidHandshake(hub, '/dashboard', hub.tokens.dashboard)),
    ]);
    for (const socket of [...runners, ...dashboards]) cut(socket);

    await waitFor(async () => (await gauge(hub, 'runner')) === 0 && (await gauge(hub, 'dashboard')) === 0, 5000, 'the gauge to return to 0');
    // every session lost its only runner: inactive (no socket left bound to it)
    const active = async (sid: string) => {
      const response = await fetch(`${hub.url}/api/sessions/${sid}`, { headers: { authorization: `Bearer ${hub.tokens.dashboard}` } });
      return ((await response.json()) as { presence: { active: boolean } }).presence.active;
    };
    for (const { sid } of sessions) await waitFor(async () => !(await active(sid)), 5000, `session ${sid} to go inactive`);
    // a fresh runner counts once: nothing half-connected lingers in the gauge
    await connectRunner(hub.url, hub.tokens.runner);
    expect(await gauge(hub, 'runner')).toBe(1);
  });
});
