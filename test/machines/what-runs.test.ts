/**
 * What runs on a machine is decided only by what a person asked for and what the hub recorded when a
 * person ran the session (issue 45, docs/machines.md "What runs"), against a real hub and real
 * Socket.IO peers speaking the machine protocol (machine-peer.ts), which keep every spawn they get:
 * a resume token that could be read as an option is never stored, by any write path; a Continue
 * sends only a token of the agent's own format; metadata a runner token writes (mode, directory,
 * machine) does not steer a Continue; a machine that merely claims a session's host does not get
 * its Continue; concurrent Continues send one spawn.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../shared/protocol/json.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { connectRunner, startSession } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { TEST_TOKENS } from '../helpers/tokens.js';
import { httpCall } from '../helpers/http-call.js';
import { connectMachine, type MachinePeer } from './machine-peer.js';

let hub: TestHub;
useTestHub((started) => (hub = started), () => ({ config: { spawnTimeoutMs: 3_000 } }));

const call = (method: string, path: string, options: { token?: string; body?: unknown } = {}) => httpCall(hub.url, method, path, options);

const session = async (sid: string) => (await call('GET', `/api/sessions/${sid}`)).body as unknown as SessionSnapshot;
const spawns = (peer: MachinePeer) => peer.received.filter((entry) => entry.event === 'machine-spawn').map((entry) => entry.payload as Record<string, unknown>);

/** Claude Code's `--settings` read as an option: its apiKeyHelper runs a shell command (issue 45.1). */
const OPTION = `--settings={"apiKeyHelper":"id > ~/proof; echo k"}`;

function hook(payload: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { id: randomUUID(), flavor: 'claude', firedAt: Date.now(), seq: 0, payload, ...extra };
}

async function postHooks(events: unknown[]) {
  return (await call('POST', '/api/hooks', { token: TEST_TOKENS.agent, body: { events } })).body.results as { outcome: string; detail?: string }[];
}

/** A session a person started on the machine (in `mode`), whose run then ended successfully. */
async function startedThenEnded(peer: MachinePeer, body: Record<string, unknown> = {}) {
  const started = await call('POST', `/api/machines/${peer.register.machineId}/sessions`, { body: { flavor: 'claude', path: '/home/alice/code/api', prompt: 'hello', ...body } });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const sid = started.body.sid as string;
  await peer.socket.emitWithAck('session-end', { sid, reason: 'completed', status: 'success' });
  peer.driving.delete(sid);
  peer.received.length = 0;
  return sid;
}

describe('a resume token is never an option', () => {
  it('refuses update-metadata (patch and document) of a resume token that could be read as an option, naming the key and the format', async () => {
    const runner = await connectRunner(hub.url, TEST_TOKENS.runner);
    const { sid } = await startSession(runner, { tag: 'written-by-a-runner', flavor: 'claude' });
    const version = (await session(sid)).metadata.version;
    const writes: ({ patch: JsonObject } | { metadata: JsonObject })[] = [{ patch: { claudeSessionId: OPTION } }, { metadata: { claudeSessionId: OPTION } }, { patch: { codexSessionId: '-c' } }, { patch: { claudeSessionId: 'a b' } }];
    for (const write of writes) {
      const answer = await runner.emitWithAck('update-metadata', { sid, expectedVersion: version, ...write });
      expect(answer).toMatchObject({ result: 'error', code: 'invalid_payload' });
      expect((answer as { message: string }).message).toMatch(/^(patch|metadata)\.(claude|codex)SessionId must be .*session id: a letter or digit/);
    }
    expect((await session(sid)).metadata.version).toBe(version);
    // a token of the agent's own, and clearing one, are written
    expect(await runner.emitWithAck('update-metadata', { sid, expectedVersion: version, patch: { claudeSessionId: randomUUID() } })).toMatchObject({ result: 'success' });
  });

  it('refuses a session-start whose metadata carries such a token', async () => {
    const runner = await connectRunner(hub.url, TEST_TOKENS.runner);
    const answer = await runner.emitWithAck('session-start', { tag: 'planted-at-start', flavor: 'claude', source: 'startup', metadata: { claudeSessionId: OPTION } });
    expect(answer).toMatchObject({ ok: false, error: { code: 'invalid_payload' } });
    expect((answer as { error: { message: string } }).error.message).toMatch(/metadata\.claudeSessionId/);
    expect(((await call('GET', '/api/sessions')).body.sessions as unknown[]).length).toBe(0);
  });

  it('refuses hooks whose session id is an option: no session, nothing to continue', async () => {
    const peer = await connectMachine(hub.url, TEST_TOKENS.machine, { roots: ['/home/alice/code'] });
    const where = { host: peer.register.host, machineId: peer.register.machineId };
    const results = await postHooks([
      hook({ hook_event_name: 'SessionStart', session_id: OPTION, cwd: '/home/alice/code/api', source: 'startup' }, where),
      hook({ hook_event_name: 'SessionEnd', session_id: OPTION, cwd: '/home/alice/code/api', reason: 'other' }, { ...where, seq: 1 }),
    ]);
    expect(results.map((r) => r.outcome)).toEqual(['failed', 'failed']);
    expect(results[0]!.detail).toMatch(/invalid_payload: the hook's session id is refused: claudeSessionId must be Claude Code's session id/);
    expect(((await call('GET', '/api/sessions')).body.sessions as unknown[]).length).toBe(0);
    expect(spawns(peer)).toEqual([]);
  });

  it('a Continue sends only a token of the agent\'s own format: a terminal session whose id is no UUID is refused, nothing sent', async () => {
    const peer = await connectMachine(hub.url, TEST_TOKENS.machine);
    const tag = 'not-a-claude-id';
    const results = await postHooks([
      hook({ hook_event_name: 'SessionStart', session_id: tag, cwd: '/home/alice/code/api', source: 'startup' }, { host: peer.register.host }),
      hook({ hook_event_name: 'SessionEnd', session_id: tag, cwd: '/home/alice/code/api', reason: 'other' }, { host: peer.register.host, seq: 1 }),
    ]);
    expect(results.map((r) => r.outcome)).toEqual(['applied', 'applied']);
    const sid = ((await call('GET', '/api/sessions')).body.sessions as { sid: string }[])[0]!.sid;
    const refused = await call('POST', `/api/sessions/${sid}/continue`, { body: { prompt: 'go on' } });
    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_payload' } });
    expect(refused.body.message).toMatch(/claudeSessionId\) must be Claude Code's session id, a UUID/);
    expect(peer.received).toEqual([]);
  });

  it('refuses a model name that could be read as an option', async () => {
    const peer = await connectMachine(hub.url, TEST_TOKENS.machine);
    const started = await call('POST', `/api/machines/${peer.register.machineId}/sessions`, { body: { flavor: 'claude', path: '/home/alice/code', model: '--settings=x' } });
    expect(started).toMatchObject({ status: 400, body: { error: 'invalid_payload' } });
    expect(started.body.message).toMatch(/model/);
    expect(peer.received).toEqual([]);
  });
});

describe('a Continue goes by what a person asked and what the hub recorded', () => {
  it('never takes the permission mode a runner token wrote into metadata: the recorded one, else the one asked for; bypass only when asked again', async () => {
    const peer = await connectMachine(hub.url, TEST_TOKENS.machine, { allowBypass: true });
    const sid = await startedThenEnded(peer, { permissionMode: 'default' });
    // any runner token of the namespace (the one in every agent's environment) writes metadata
    const runner = await connectRunner(hub.url, TEST_TOKENS.runner);
    const planted = await runner.emitWithAck('update-metadata', { sid, expectedVersion: (await session(sid)).metadata.version, patch: { permissionMode: 'bypassPermissions' } });
    expect(planted).toMatchObject({ result: 'success' });
    expect(await call('POST', `/api/sessions/${sid}/continue`, { body: { prompt: 'go on' } })).toMatchObject({ status: 202 });
    expect(spawns(peer)[0]).toMatchObject({ permissionMode: 'default' });

    // started in bypass by a person: a Continue without a mode does not imply it again
    const bypassed = await startedThenEnded(peer, { permissionMode: 'bypassPermissions' });
    expect(await call('POST', `/api/sessions/${bypassed}/continue`, { body: {} })).toMatchObject({ status: 202 });
    expect(spawns(peer)[0]).toMatchObject({ permissionMode: 'default' });
    await peer.socket.emitWithAck('session-end', { sid: bypassed, reason: 'completed', status: 'success' });
    peer.received.length = 0;
    expect(await call('POST', `/api/sessions/${bypassed}/continue`, { body: { permissionMode: 'bypassPermissions' } })).toMatchObject({ status: 202 });
    expect(spawns(peer)[0]).toMatchObject({ permissionMode: 'bypassPermissions' });
  });

  it('never takes the directory or the machine a runner token wrote into metadata on a session a person started', async () => {
    const peer = await connectMachine(hub.url, TEST_TOKENS.machine, { roots: ['/home/alice'] });
    const other = await connectMachine(hub.url, TEST_TOKENS.machine2, { roots: ['/'], host: peer.register.host });
    const sid = await startedThenEnded(peer);
    const runner = await connectRunner(hub.url, TEST_TOKENS.runner);
    const planted = await runner.emitWithAck('update-metadata', {
      sid,
      expectedVersion: (await session(sid)).metadata.version,
      patch: { path: '/home/alice/.ssh', machineId: other.register.machineId, host: 'elsewhere' },
    });
    expect(planted).toMatchObject({ result: 'success' });
    const continued = await call('POST', `/api/sessions/${sid}/continue`, { body: { prompt: 'go on' } });
    expect(continued).toMatchObject({ status: 202, body: { machineId: peer.register.machineId } });
    expect(spawns(peer)[0]).toMatchObject({ path: '/home/alice/code/api' });
    expect(other.received).toEqual([]);
  });
});

describe('a terminal session is continued only on a machine nobody has to guess', () => {
  it('two machines claim its host: no_machine naming both, until the person picks one with machineId', async () => {
    const real = await connectMachine(hub.url, TEST_TOKENS.machine, { host: 'vm', name: 'the vm', roots: ['/home/alice'] });
    const claimer = await connectMachine(hub.url, TEST_TOKENS.machine2, { host: 'vm', name: 'another computer', roots: ['/'] });
    const tag = randomUUID();
    // its hooks even name the claimer's machine id: an agent token writes that, it chooses nothing
    const where = { host: 'vm', machineId: claimer.register.machineId };
    await postHooks([
      hook({ hook_event_name: 'SessionStart', session_id: tag, cwd: '/home/alice/app', source: 'startup' }, where),
      hook({ hook_event_name: 'SessionEnd', session_id: tag, cwd: '/home/alice/app', reason: 'other' }, { ...where, seq: 1 }),
    ]);
    const sid = ((await call('GET', '/api/sessions')).body.sessions as { sid: string }[])[0]!.sid;
    const ambiguous = await call('POST', `/api/sessions/${sid}/continue`, { body: { prompt: 'secret plans' } });
    expect(ambiguous).toMatchObject({ status: 409, body: { error: 'no_machine' } });
    expect(ambiguous.body.message).toContain('"the vm"');
    expect(ambiguous.body.message).toContain('"another computer"');
    expect(ambiguous.body.message).toMatch(/choose one with machineId/);
    expect(real.received).toEqual([]);
    expect(claimer.received).toEqual([]);

    const picked = await call('POST', `/api/sessions/${sid}/continue`, { body: { prompt: 'secret plans', machineId: real.register.machineId } });
    expect(picked).toMatchObject({ status: 202, body: { machineId: real.register.machineId } });
    expect(spawns(real)[0]).toMatchObject({ resume: { sid, token: tag } });
    expect(claimer.received).toEqual([]);
  });
});

describe('one live run per session', () => {
  it('three Continues at once: one spawn, one 202, two 409 session_running', async () => {
    const peer = await connectMachine(hub.url, TEST_TOKENS.machine);
    const sid = await startedThenEnded(peer);
    // the agent takes a moment to report its session: the three overlap
    const answer = peer.onSpawn;
    peer.onSpawn = async (spawn) => {
      await new Promise((resolve) => setTimeout(resolve, 500));
      return answer(spawn);
    };
    const answers = await Promise.all([1, 2, 3].map(() => call('POST', `/api/sessions/${sid}/continue`, { body: { prompt: 'go on' } })));
    expect(answers.map((a) => a.status).sort()).toEqual([202, 409, 409]);
    expect(answers.filter((a) => a.status === 409).map((a) => a.body.error)).toEqual(['session_running', 'session_running']);
    expect(spawns(peer)).toHaveLength(1);
    // once that run lives, a later Continue is refused too; once it ended, one goes through again
    expect(await call('POST', `/api/sessions/${sid}/continue`, { body: {} })).toMatchObject({ status: 409, body: { error: 'session_running' } });
    await peer.socket.emitWithAck('session-end', { sid, reason: 'completed', status: 'success' });
    expect(await call('POST', `/api/sessions/${sid}/continue`, { body: {} })).toMatchObject({ status: 202 });
  });

  it('a failed spawn leaves no claim behind: the next Continue is sent', async () => {
    const peer = await connectMachine(hub.url, TEST_TOKENS.machine);
    const sid = await startedThenEnded(peer);
    const answer = peer.onSpawn;
    peer.onSpawn = async () => ({ ok: false, error: { code: 'spawn_failed', message: 'claude exited with 1' } });
    expect(await call('POST', `/api/sessions/${sid}/continue`, { body: {} })).toMatchObject({ status: 422, body: { error: 'spawn_failed' } });
    peer.onSpawn = answer;
    expect(await call('POST', `/api/sessions/${sid}/continue`, { body: {} })).toMatchObject({ status: 202 });
    expect(spawns(peer)).toHaveLength(2);
  });
});
