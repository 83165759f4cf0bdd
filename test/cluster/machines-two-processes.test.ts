/**
 * A machine registered on one hub process is reached from another (spec section 14): both
 * processes see it online, a start and a directory listing taken by the second reach the socket on
 * the first through the Redis adapter, and it is offline on both once it drops.
 */
import { describe, expect, it } from 'vitest';
import type { ListedMachine } from '../../shared/protocol/machines.js';
import { waitFor } from '../helpers/clients.js';
import type { HubProcess } from '../helpers/hub-process.js';
import { connectMachine } from '../machines/machine-peer.js';
import { callAs as call, getSession, startTwoHubs, twoHubsAfterEach } from './two-hubs.js';

twoHubsAfterEach();

describe('machines across two hub processes', () => {
  it('a request taken by process B reaches the machine registered on process A', { timeout: 60_000 }, async () => {
    const { a, b, tokens } = await startTwoHubs();
    const peer = await connectMachine(a.url, tokens.machine);
    expect(peer.registered.ok).toBe(true);
    const listedOn = async (hub: HubProcess) => ((await call(hub, tokens.dashboard, 'GET', '/api/machines')).body.machines as ListedMachine[])[0];
    expect(await listedOn(b)).toMatchObject({ machineId: peer.register.machineId, online: true });

    const dirs = await call(b, tokens.operator, 'GET', `/api/machines/${peer.register.machineId}/dirs`);
    expect(dirs).toMatchObject({ status: 200, body: { path: '/home/alice/code', dirs: ['api', 'web'] } });
    const started = await call(b, tokens.operator, 'POST', `/api/machines/${peer.register.machineId}/sessions`, { flavor: 'claude', path: '/home/alice/code/api', prompt: 'hi' });
    expect(started).toMatchObject({ status: 201, body: { machineId: peer.register.machineId } });
    const sid = started.body.sid as string;
    expect((await getSession(b, sid, tokens.dashboard)).metadata.value).toMatchObject({ machineId: peer.register.machineId });

    const stopped = await call(b, tokens.operator, 'POST', `/api/sessions/${sid}/stop`, {});
    expect(stopped.status).toBe(202);
    expect((await getSession(b, sid, tokens.dashboard)).lifecycle.lastRun?.status).toBe('cancelled');

    peer.socket.disconnect();
    await waitFor(async () => (await listedOn(b))?.online === false, 5000, 'offline on B');
    expect(await call(b, tokens.operator, 'POST', `/api/machines/${peer.register.machineId}/sessions`, { flavor: 'claude', path: '/home/alice/code' })).toMatchObject({
      status: 409,
      body: { error: 'machine_offline' },
    });
  });
});
