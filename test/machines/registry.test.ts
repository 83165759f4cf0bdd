/**
 * The machine registry stays bounded (issue 45.7): one machine token registered 2,600 machines in
 * 8 s and the list grew to 12 MB. A token registers at most SESSION_HUB_MACHINES_PER_TOKEN machines
 * (3 here); a person forgets one (DELETE /api/machines/:machineId, not while it is connected), and
 * its id may then register again. Real hub, real Socket.IO peers speaking the machine protocol.
 */
import { describe, expect, it } from 'vitest';
import type { ListedMachine } from '../../shared/protocol/machines.js';
import { waitFor } from '../helpers/clients.js';
import { httpCall } from '../helpers/http-call.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { TEST_TOKENS } from '../helpers/tokens.js';
import { connectMachine } from './machine-peer.js';

let hub: TestHub;
useTestHub((started) => (hub = started), () => ({ config: { machinesPerToken: 3 } }));

const call = (method: string, path: string, options: { token?: string; body?: unknown } = {}) => httpCall(hub.url, method, path, options);
const listed = async () => (await call('GET', '/api/machines')).body.machines as ListedMachine[];

describe('machines per token', () => {
  it('past the cap a new machine is refused naming the cap and how to forget one; a known one registers again; forgotten, its id is free', async () => {
    const peers = [];
    for (let i = 0; i < 3; i += 1) peers.push(await connectMachine(hub.url, TEST_TOKENS.machine, { machineId: `capped-machine-${i}` }));
    expect(peers.map((peer) => peer.registered.ok)).toEqual([true, true, true]);

    const fourth = await connectMachine(hub.url, TEST_TOKENS.machine, { machineId: 'capped-machine-3' });
    expect(fourth.registered).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect((fourth.registered as { error: { message: string } }).error.message).toMatch(/3 machines.*SESSION_HUB_MACHINES_PER_TOKEN.*forget/s);
    expect((await listed()).map((machine) => machine.machineId).sort()).toEqual(['capped-machine-0', 'capped-machine-1', 'capped-machine-2']);

    // a machine it holds already is not a new one: a restart registers as before
    expect((await peers[0]!.socket.emitWithAck('machine-register', peers[0]!.register)).ok).toBe(true);

    // forgetting: operator or admin; not while connected; then gone and its place free
    expect(await call('DELETE', '/api/machines/capped-machine-1', { token: TEST_TOKENS.dashboard })).toMatchObject({ status: 403 });
    expect(await call('DELETE', '/api/machines/capped-machine-1')).toMatchObject({ status: 409, body: { error: 'machine_online' } });
    peers[1]!.socket.disconnect();
    await waitFor(async () => (await listed()).find((machine) => machine.machineId === 'capped-machine-1')?.online === false, 10_000, 'machine 1 offline');
    expect(await call('DELETE', '/api/machines/capped-machine-1')).toMatchObject({ status: 200, body: { machineId: 'capped-machine-1', forgotten: true } });
    expect((await listed()).map((machine) => machine.machineId)).not.toContain('capped-machine-1');
    expect(await call('DELETE', '/api/machines/capped-machine-1')).toMatchObject({ status: 404, body: { error: 'machine_not_found' } });

    const again = await connectMachine(hub.url, TEST_TOKENS.machine, { machineId: 'capped-machine-3' });
    expect(again.registered.ok).toBe(true);
    expect((await listed()).map((machine) => machine.machineId).sort()).toEqual(['capped-machine-0', 'capped-machine-2', 'capped-machine-3']);
  });

  it("lists each machine's recent directories, every machine's in one read", async () => {
    const a = await connectMachine(hub.url, TEST_TOKENS.machine, { machineId: 'paths-machine-a' });
    const b = await connectMachine(hub.url, TEST_TOKENS.machine, { machineId: 'paths-machine-b' });
    for (const [peer, path] of [[a, '/home/alice/code/api'], [a, '/home/alice/code/web'], [b, '/home/alice/code/api']] as const) {
      expect(await call('POST', `/api/machines/${peer.register.machineId}/sessions`, { body: { flavor: 'claude', path, prompt: 'hi' } })).toMatchObject({ status: 201 });
    }
    const machines = await listed();
    expect(machines.find((machine) => machine.machineId === 'paths-machine-a')?.recentPaths).toEqual(['/home/alice/code/web', '/home/alice/code/api']);
    expect(machines.find((machine) => machine.machineId === 'paths-machine-b')?.recentPaths).toEqual(['/home/alice/code/api']);
  });
});

describe('a runner that drops while the hub waits for its answer', () => {
  it('a start answers machine_offline once its socket is gone, not after the 30 s spawn timeout', async () => {
    const peer = await connectMachine(hub.url, TEST_TOKENS.machine, { machineId: 'dropping-machine' });
    peer.onSpawn = async () => {
      peer.socket.disconnect();
      return undefined;
    };
    const asked = Date.now();
    const answer = await call('POST', '/api/machines/dropping-machine/sessions', { body: { flavor: 'claude', path: '/home/alice/code', prompt: 'hi' } });
    expect(answer).toMatchObject({ status: 409, body: { error: 'machine_offline' } });
    expect(String(answer.body.message)).toMatch(/disconnected before it answered/);
    // the spawn timeout is 30 s here: the answer came from the drop
    expect(Date.now() - asked).toBeLessThan(15_000);
  });
});
