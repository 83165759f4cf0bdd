/**
 * The hub half of machines (spec section 14) against a real hub and a real Socket.IO peer speaking
 * the machine protocol (machine-peer.ts): the machine role, registering, online and offline, the
 * routes, every refusal with nothing sent to the runner, continue through the resume gate, and
 * interrupt and stop of a runner-driven session.
 */
import { describe, expect, it } from 'vitest';
import type { ListedMachine } from '../../shared/protocol/machines.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { connectRunner, startSession, waitFor } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { TEST_TOKENS } from '../helpers/tokens.js';
import { httpCall } from '../helpers/http-call.js';
import { connectMachine, type MachinePeer } from './machine-peer.js';

let hub: TestHub;
useTestHub((started) => (hub = started), () => ({ config: { spawnTimeoutMs: 1_500 } }));

const call = (method: string, path: string, options: { token?: string; body?: unknown } = {}) => httpCall(hub.url, method, path, options);

const machines = async (token: string = TEST_TOKENS.dashboard) => (await call('GET', '/api/machines', { token })).body.machines as ListedMachine[];
const session = async (sid: string) => (await call('GET', `/api/sessions/${sid}`)).body as unknown as SessionSnapshot;
/** Claude Code session ids (UUIDs: a Continue sends nothing else). */
const CLAUDE_ID = '3d2c3a8e-6f0b-4f43-9a57-0b6f3c1d2e11';
const TERMINAL_ID = '7b1e9c4d-2a3f-4e5b-8c6d-9e0f1a2b3c4d';
const spawns = (peer: MachinePeer) => peer.received.filter((entry) => entry.event === 'machine-spawn');

/** A session the machine started and ended with `status`, its resume token stored. */
async function endedOnMachine(peer: MachinePeer, status: 'success' | 'failure' | 'interrupted' = 'success') {
  const started = await call('POST', `/api/machines/${peer.register.machineId}/sessions`, { body: { flavor: 'claude', path: '/home/alice/code/api', prompt: 'hello' } });
  expect(started.status).toBe(201);
  const sid = started.body.sid as string;
  const snapshot = await session(sid);
  const written = await peer.socket.emitWithAck('update-metadata', { sid, expectedVersion: snapshot.metadata.version, patch: { claudeSessionId: CLAUDE_ID } });
  expect(written.result).toBe('success');
  await peer.socket.emitWithAck('session-end', { sid, reason: status === 'success' ? 'completed' : 'error', status });
  peer.driving.delete(sid);
  peer.received.length = 0;
  return sid;
}

describe('the machine role and machine-register', () => {
  it('registers with a machine token, online while connected, offline at once when it drops, lastSeenAt kept', async () => {
    const peer = await connectMachine(hub.url, TEST_TOKENS.machine, { allowBypass: true });
    expect(peer.registered).toMatchObject({ ok: true, machine: { machineId: peer.register.machineId, online: true, roots: ['/home/alice/code'], allowBypass: true } });
    expect(await machines()).toMatchObject([{ machineId: peer.register.machineId, online: true, host: 'laptop.local', agents: [{ flavor: 'claude' }] }]);
    const before = (await machines())[0]!.lastSeenAt;
    peer.socket.disconnect();
    await waitFor(async () => (await machines())[0]?.online === false, 3000, 'machine offline');
    const [listed] = await machines();
    expect(listed!.lastSeenAt).toBeGreaterThanOrEqual(before);
    // another namespace sees nothing of it
    expect(await machines(TEST_TOKENS.otherDashboard)).toEqual([]);
  });

  it('refuses a runner token (forbidden) and stores nothing; a machine token still reports sessions like a runner', async () => {
    const runner = await connectRunner(hub.url, TEST_TOKENS.runner);
    const answer = await runner.emitWithAck('machine-register', { machineId: 'machine-from-a-runner-token', name: 'x', host: 'x', platform: 'linux', roots: ['/tmp'], agents: [] });
    expect(answer).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(answer.ok === false && answer.error.message).toMatch(/--role machine/);
    expect(await machines()).toEqual([]);
    const machine = await connectRunner(hub.url, TEST_TOKENS.machine);
    expect((await startSession(machine, { tag: 'reported-by-a-machine-token' })).sid).toBeTruthy();
  });

  it('answers forbidden to a machineId another token holds', async () => {
    const first = await connectMachine(hub.url, TEST_TOKENS.machine);
    const second = await connectRunner(hub.url, TEST_TOKENS.machine2);
    const answer = await second.emitWithAck('machine-register', { ...first.register, name: 'impostor' });
    expect(answer).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect((await machines())[0]).toMatchObject({ name: first.register.name, online: true });
  });

  it('names the field of a bad register payload', async () => {
    const socket = await connectRunner(hub.url, TEST_TOKENS.machine);
    const answer = await socket.emitWithAck('machine-register', { machineId: 'machine-bad-roots', name: 'x', host: 'x', platform: 'linux', roots: ['relative/dir'], agents: [] });
    expect(answer).toMatchObject({ ok: false, error: { code: 'invalid_payload' } });
    expect(answer.ok === false && answer.error.message).toMatch(/roots/);
  });

  it('keeps one socket per machine: a second registration of the same machine lets the first go', async () => {
    const first = await connectMachine(hub.url, TEST_TOKENS.machine);
    const again = await connectMachine(hub.url, TEST_TOKENS.machine, { machineId: first.register.machineId });
    expect(again.registered.ok).toBe(true);
    await waitFor(() => first.socket.disconnected, 3000, 'the first socket let go');
    const started = await call('POST', `/api/machines/${first.register.machineId}/sessions`, { body: { flavor: 'claude', path: '/home/alice/code' } });
    expect(started.status).toBe(201);
    expect(spawns(first)).toHaveLength(0);
    expect(spawns(again)).toHaveLength(1);
  });
});

describe('starting an agent', () => {
  it('answers 201 { sid, machineId } once the session exists on the hub, with who asked, and lists the directory as recent', async () => {
    const peer = await connectMachine(hub.url, TEST_TOKENS.machine);
    const started = await call('POST', `/api/machines/${peer.register.machineId}/sessions`, {
      body: { flavor: 'claude', path: '/home/alice/code/api', prompt: 'add a test', permissionMode: 'acceptEdits', model: 'sonnet' },
    });
    expect(started).toMatchObject({ status: 201, body: { machineId: peer.register.machineId } });
    const snapshot = await session(started.body.sid as string);
    expect(snapshot.metadata.value).toMatchObject({ path: '/home/alice/code/api', machineId: peer.register.machineId });
    expect(snapshot.lifecycle.state).toBe('running');
    expect(spawns(peer)[0]!.payload).toMatchObject({ flavor: 'claude', path: '/home/alice/code/api', prompt: 'add a test', permissionMode: 'acceptEdits', model: 'sonnet' });
    expect((spawns(peer)[0]!.payload as { requestedBy: string }).requestedBy).toMatch(/^token [0-9a-f]{12}$/);
    expect((await machines())[0]!.recentPaths).toEqual(['/home/alice/code/api']);
  });

  it('refuses with nothing sent to the runner: outside the roots, an agent it lacks, bypass not allowed, unknown machine, a dashboard token', async () => {
    const peer = await connectMachine(hub.url, TEST_TOKENS.machine);
    const start = (body: unknown, token?: string, machineId = peer.register.machineId) => call('POST', `/api/machines/${machineId}/sessions`, { body, token });
    const outside = await start({ flavor: 'claude', path: '/home/alice/code/../secrets' });
    expect(outside).toMatchObject({ status: 400, body: { error: 'path_outside_roots' } });
    expect(outside.body.message).toMatch(/\/home\/alice\/code/);
    expect(await start({ flavor: 'claude', path: '/etc' })).toMatchObject({ status: 400, body: { error: 'path_outside_roots' } });
    const agent = await start({ flavor: 'codex', path: '/home/alice/code' });
    expect(agent).toMatchObject({ status: 400, body: { error: 'agent_unavailable' } });
    expect(agent.body.message).toMatch(/has: claude/);
    const bypass = await start({ flavor: 'claude', path: '/home/alice/code', permissionMode: 'bypassPermissions' });
    expect(bypass).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    expect(bypass.body.message).toMatch(/--allow-bypass/);
    expect(await start({ flavor: 'claude', path: '/home/alice/code' }, TEST_TOKENS.dashboard)).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    expect(await start({ flavor: 'claude', path: '/home/alice/code' }, TEST_TOKENS.runner)).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    expect(await start({ flavor: 'claude', path: '/home/alice/code' }, TEST_TOKENS.otherOperator)).toMatchObject({ status: 404, body: { error: 'machine_not_found' } });
    expect(await start({ flavor: 'claude', path: 'relative' })).toMatchObject({ status: 400, body: { error: 'invalid_payload' } });
    expect(peer.received).toEqual([]);
    peer.socket.disconnect();
    await waitFor(async () => (await machines())[0]?.online === false);
    const offline = await start({ flavor: 'claude', path: '/home/alice/code' });
    expect(offline).toMatchObject({ status: 409, body: { error: 'machine_offline' } });
    expect(offline.body.message).toMatch(/session-hub runner/);
  });

  it('allows bypassPermissions on a machine started with --allow-bypass', async () => {
    const peer = await connectMachine(hub.url, TEST_TOKENS.machine, { allowBypass: true });
    const started = await call('POST', `/api/machines/${peer.register.machineId}/sessions`, { body: { flavor: 'claude', path: '/home/alice/code', permissionMode: 'bypassPermissions' } });
    expect(started.status).toBe(201);
  });

  it('passes the runner refusal on: spawn_failed 422 with its message, path_outside_roots after a symlink', async () => {
    const peer = await connectMachine(hub.url, TEST_TOKENS.machine);
    peer.onSpawn = async () => ({ ok: false, error: { code: 'spawn_failed', message: 'claude exited with 1: error: unknown option --bogus' } });
    const failed = await call('POST', `/api/machines/${peer.register.machineId}/sessions`, { body: { flavor: 'claude', path: '/home/alice/code' } });
    expect(failed).toMatchObject({ status: 422, body: { error: 'spawn_failed', message: 'claude exited with 1: error: unknown option --bogus' } });
    peer.onSpawn = async () => ({ ok: false, error: { code: 'path_outside_roots', message: '/home/alice/code/link resolves to /etc, outside every root' } });
    expect(await call('POST', `/api/machines/${peer.register.machineId}/sessions`, { body: { flavor: 'claude', path: '/home/alice/code/link' } })).toMatchObject({
      status: 400,
      body: { error: 'path_outside_roots' },
    });
  });

  it('answers 504 spawn_timeout when the session is not reported in time, and stops what the request started', async () => {
    const peer = await connectMachine(hub.url, TEST_TOKENS.machine);
    peer.onSpawn = async () => undefined;
    const timedOut = await call('POST', `/api/machines/${peer.register.machineId}/sessions`, { body: { flavor: 'claude', path: '/home/alice/code' } });
    expect(timedOut).toMatchObject({ status: 504, body: { error: 'spawn_timeout' } });
    expect(String(timedOut.body.message)).toMatch(/it was stopped$/);
    const [spawn] = spawns(peer);
    await waitFor(() => peer.received.some((entry) => entry.event === 'machine-stop'));
    const stop = peer.received.find((entry) => entry.event === 'machine-stop')!;
    expect(stop.payload).toMatchObject({ requestId: (spawn!.payload as { requestId: string }).requestId });
  });

  it('says a timed-out start was stopped only when the runner confirmed the stop (issue 45.6)', async () => {
    const peer = await connectMachine(hub.url, TEST_TOKENS.machine);
    peer.onSpawn = async () => undefined;
    peer.socket.off('machine-stop');
    peer.socket.on('machine-stop', (_payload, ack) => ack({ ok: false, error: { code: 'not_found', message: 'this runner drives no such request' } }));
    const timedOut = await call('POST', `/api/machines/${peer.register.machineId}/sessions`, { body: { flavor: 'claude', path: '/home/alice/code' } });
    expect(timedOut).toMatchObject({ status: 504, body: { error: 'spawn_timeout' } });
    expect(String(timedOut.body.message)).toMatch(/did not confirm it stopped it \(this runner drives no such request\): it may still run/);
    expect(String(timedOut.body.message)).not.toMatch(/it was stopped/);
  });
});

describe('directories', () => {
  it('relays machine-dirs (default: its first root) and refuses a path outside the roots without asking', async () => {
    const peer = await connectMachine(hub.url, TEST_TOKENS.machine, { roots: ['/home/alice/code', '/srv/work'] });
    // a machine's directories show its file system: operator or admin only (issue 45.11), refused before the runner is asked
    for (const token of [TEST_TOKENS.dashboard, TEST_TOKENS.runner, TEST_TOKENS.machine, TEST_TOKENS.agent]) {
      const refused = await call('GET', `/api/machines/${peer.register.machineId}/dirs`, { token });
      expect(refused.status).toBe(403);
      expect(String(refused.body.message)).toMatch(/operator|admin/);
    }
    expect(peer.received).toEqual([]);
    const listed = await call('GET', `/api/machines/${peer.register.machineId}/dirs`);
    expect(listed).toMatchObject({ status: 200, body: { path: '/home/alice/code', dirs: ['api', 'web'] } });
    const nested = await call('GET', `/api/machines/${peer.register.machineId}/dirs?path=${encodeURIComponent('/srv/work/x')}`);
    expect(nested.body).toMatchObject({ path: '/srv/work/x' });
    expect(await call('GET', `/api/machines/${peer.register.machineId}/dirs?path=%2Fetc`)).toMatchObject({ status: 400, body: { error: 'path_outside_roots' } });
    expect(peer.received.map((entry) => entry.event)).toEqual(['machine-dirs', 'machine-dirs']);
  });
});

describe('continue', () => {
  it('continues an ended session on the machine that ran it: the same sid, a new run, the resume token sent', async () => {
    const peer = await connectMachine(hub.url, TEST_TOKENS.machine);
    const sid = await endedOnMachine(peer);
    const continued = await call('POST', `/api/sessions/${sid}/continue`, { body: { prompt: 'and now the docs' } });
    expect(continued).toMatchObject({ status: 202, body: { sid, machineId: peer.register.machineId } });
    expect(spawns(peer)[0]!.payload).toMatchObject({ flavor: 'claude', path: '/home/alice/code/api', prompt: 'and now the docs', resume: { sid, tokenKey: 'claudeSessionId', token: CLAUDE_ID } });
    const snapshot = await session(sid);
    expect(snapshot.lifecycle.lastRun?.status).toBe('running');
    // while that run lives, continue is refused
    const running = await call('POST', `/api/sessions/${sid}/continue`, { body: {} });
    expect(running).toMatchObject({ status: 409, body: { error: 'session_running' } });
    expect(spawns(peer)).toHaveLength(1);
  });

  it('goes through the gate: an unsafe session is refused with its reason and nothing started, then forced', async () => {
    const peer = await connectMachine(hub.url, TEST_TOKENS.machine);
    const sid = await endedOnMachine(peer, 'failure');
    const refused = await call('POST', `/api/sessions/${sid}/continue`, { body: {} });
    expect(refused).toMatchObject({ status: 409, body: { error: 'resume_unsafe', reason: 'last_run_failure' } });
    expect(refused.body.message).toMatch(/force/);
    expect(peer.received).toEqual([]);
    const forced = await call('POST', `/api/sessions/${sid}/continue`, { body: { policy: 'force' } });
    expect(forced.status).toBe(202);
    expect(spawns(peer)).toHaveLength(1);
  });

  it('says the machine is not connected before asking to continue anyway (issue 46.5): where it would run comes before the gate', async () => {
    const peer = await connectMachine(hub.url, TEST_TOKENS.machine);
    const sid = await endedOnMachine(peer, 'failure');
    // asked before the click: where it would run, nothing sent to the runner
    expect(await call('GET', `/api/sessions/${sid}/continue`)).toMatchObject({ status: 200, body: { machineId: peer.register.machineId, host: 'laptop.local', path: '/home/alice/code/api' } });
    expect(await call('GET', `/api/sessions/${sid}/continue`, { token: TEST_TOKENS.dashboard })).toMatchObject({ status: 403 });
    expect(peer.received).toEqual([]);
    peer.socket.disconnect();
    await waitFor(async () => (await machines()).find((machine) => machine.machineId === peer.register.machineId)?.online === false);
    expect(await call('GET', `/api/sessions/${sid}/continue`)).toMatchObject({ status: 409, body: { error: 'machine_offline' } });
    const refused = await call('POST', `/api/sessions/${sid}/continue`, { body: {} });
    expect(refused).toMatchObject({ status: 409, body: { error: 'machine_offline' } });
  });

  it('finds a terminal-started session a machine by host and roots; no_machine names the host and path it needs', async () => {
    const runner = await connectRunner(hub.url, TEST_TOKENS.runner);
    const terminal = await startSession(runner, { tag: 'terminal-1', flavor: 'claude', metadata: { path: '/home/alice/code/web', host: 'laptop.local', claudeSessionId: TERMINAL_ID } });
    await runner.emitWithAck('session-end', { sid: terminal.sid, reason: 'completed' });
    const nowhere = await call('POST', `/api/sessions/${terminal.sid}/continue`, { body: {} });
    expect(nowhere).toMatchObject({ status: 409, body: { error: 'no_machine' } });
    expect(nowhere.body.message).toMatch(/laptop\.local/);
    expect(nowhere.body.message).toMatch(/\/home\/alice\/code\/web/);
    const elsewhere = await connectMachine(hub.url, TEST_TOKENS.machine, { host: 'desktop.local' });
    const laptop = await connectMachine(hub.url, TEST_TOKENS.machine2, { host: 'laptop.local' });
    const continued = await call('POST', `/api/sessions/${terminal.sid}/continue`, { body: {} });
    expect(continued).toMatchObject({ status: 202, body: { sid: terminal.sid, machineId: laptop.register.machineId } });
    expect(spawns(laptop)[0]!.payload).toMatchObject({ resume: { sid: terminal.sid, token: TERMINAL_ID } });
    expect(elsewhere.received).toEqual([]);
  });

  it('refuses a machine asked for whose roots do not hold the path, and an offline one, with nothing started', async () => {
    const peer = await connectMachine(hub.url, TEST_TOKENS.machine);
    const sid = await endedOnMachine(peer);
    const other = await connectMachine(hub.url, TEST_TOKENS.machine2, { roots: ['/srv'] });
    expect(await call('POST', `/api/sessions/${sid}/continue`, { body: { machineId: other.register.machineId } })).toMatchObject({ status: 400, body: { error: 'path_outside_roots' } });
    peer.socket.disconnect();
    await waitFor(async () => (await machines()).find((machine) => machine.machineId === peer.register.machineId)?.online === false);
    const offline = await call('POST', `/api/sessions/${sid}/continue`, { body: {} });
    expect(offline).toMatchObject({ status: 409, body: { error: 'machine_offline' } });
    expect(offline.body.message).toMatch(/laptop\.local/);
    expect(other.received).toEqual([]);
    expect(await call('POST', `/api/sessions/${sid}/continue`, { body: {}, token: TEST_TOKENS.dashboard })).toMatchObject({ status: 403 });
    expect(await call('POST', `/api/sessions/no-such-session/continue`, { body: {} })).toMatchObject({ status: 404, body: { error: 'session_not_found' } });
  });
});

describe('interrupt and stop', () => {
  it('interrupts the current turn and stops a runner-driven session, whose run ends cancelled', async () => {
    const peer = await connectMachine(hub.url, TEST_TOKENS.machine);
    const started = await call('POST', `/api/machines/${peer.register.machineId}/sessions`, { body: { flavor: 'claude', path: '/home/alice/code', prompt: 'long job' } });
    const sid = started.body.sid as string;
    expect(await call('POST', `/api/sessions/${sid}/interrupt`, { body: {} })).toMatchObject({ status: 202, body: { sid, machineId: peer.register.machineId } });
    expect(peer.received.at(-1)).toMatchObject({ event: 'machine-interrupt', payload: { sid } });
    expect((await session(sid)).lifecycle.lastRun?.status).toBe('running');
    expect(await call('POST', `/api/sessions/${sid}/stop`, { body: {} })).toMatchObject({ status: 202 });
    expect(peer.received.at(-1)).toMatchObject({ event: 'machine-stop', payload: { sid } });
    const snapshot = await session(sid);
    expect(snapshot.lifecycle.lastRun?.status).toBe('cancelled');
    expect(snapshot.lifecycle.state).toBe('ended');
  });

  it('answers not_runner_driven for a session no machine runner drives, and for one the machine does not drive', async () => {
    const runner = await connectRunner(hub.url, TEST_TOKENS.runner);
    const plain = await startSession(runner, { tag: 'terminal-live' });
    const refused = await call('POST', `/api/sessions/${plain.sid}/stop`, { body: {} });
    expect(refused).toMatchObject({ status: 409, body: { error: 'not_runner_driven' } });
    const peer = await connectMachine(hub.url, TEST_TOKENS.machine);
    // a terminal agent on the machine's computer: its hooks name the machine, but the runner does not drive it
    const hooked = await startSession(runner, { tag: 'terminal-on-machine', metadata: { path: '/home/alice/code', machineId: peer.register.machineId } });
    expect(await call('POST', `/api/sessions/${hooked.sid}/interrupt`, { body: {} })).toMatchObject({ status: 409, body: { error: 'not_runner_driven' } });
    const sid = await endedOnMachine(peer);
    expect(await call('POST', `/api/sessions/${sid}/stop`, { body: {} })).toMatchObject({ status: 409, body: { error: 'not_runner_driven' } });
    expect(await call('POST', `/api/sessions/${sid}/stop`, { body: {}, token: TEST_TOKENS.dashboard })).toMatchObject({ status: 403 });
  });
});
