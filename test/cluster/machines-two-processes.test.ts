/**
 * A machine registered on one hub process is reached from another (spec section 14): both
 * processes see it online, a start and a directory listing taken by the second reach the socket on
 * the first through the Redis adapter, and it is offline on both once it drops; and the real runner
 * with the real Claude Code CLI on process A, every request (start, approval, message, stop) taken by B.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TurnSummary } from '../../shared/protocol/session.js';
import { startAnthropicServer } from '../agents/helpers/anthropic-server.js';
import type { ModelServer } from '../agents/helpers/model-server.js';
import { claudeHome, type ClaudeHome } from '../runner/helpers/claude-home.js';
import { spawnRunner, type RunnerProcess } from '../runner/helpers/runner-process.js';
import type { ListedMachine } from '../../shared/protocol/machines.js';
import { waitFor } from '../helpers/clients.js';
import { alive } from '../helpers/process-alive.js';
import type { HubProcess } from '../helpers/hub-process.js';
import { connectMachine } from '../machines/machine-peer.js';
import { getSession, startTwoHubs, twoHubsAfterEach } from './two-hubs.js';

twoHubsAfterEach();
let model: ModelServer | undefined;
let home: ClaudeHome | undefined;
let runner: RunnerProcess | undefined;
afterEach(async () => {
  await runner?.stop();
  await model?.close();
  home?.remove();
  runner = model = home = undefined;
});


async function call(hub: HubProcess, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${hub.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

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

  it('the real runner on process A, the real claude: start, approval, message and stop all taken by process B', { timeout: 240_000 }, async () => {
    const { a, b, tokens } = await startTwoHubs();
    model = await startAnthropicServer({ tools: [{ name: 'Bash', input: { command: 'touch approved.txt', description: 'make a file' } }], finalText: 'All done.' });
    home = claudeHome(model.url);
    runner = spawnRunner({ hubUrl: a.url, token: tokens.machine, roots: [home.root], env: { ...home.env, XDG_CONFIG_HOME: home.root } });
    let machine: ListedMachine | undefined;
    await waitFor(async () => {
      machine = ((await call(b, tokens.dashboard, 'GET', '/api/machines')).body.machines as ListedMachine[]).find((m) => m.online);
      return machine !== undefined;
    }, 30_000, `the runner online as seen from B; runner:\n${runner.output()}`);

    const started = await call(b, tokens.operator, 'POST', `/api/machines/${machine!.machineId}/sessions`, { flavor: 'claude', path: home.dir, prompt: 'first prompt' });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const sid = started.body.sid as string;
    const pending = async () => {
      let id: string | undefined;
      await waitFor(async () => {
        const approvals = (await call(b, tokens.dashboard, 'GET', `/api/sessions/${sid}/approvals`)).body.approvals as { approvalId: string; status: string }[];
        id = approvals.find((x) => x.status === 'pending')?.approvalId;
        return id !== undefined;
      }, 60_000, 'a pending approval seen from B');
      return id!;
    };
    expect((await call(b, tokens.operator, 'POST', `/api/sessions/${sid}/approvals/${await pending()}`, { decision: 'allow' })).status).toBe(200);
    const turns = async () => (await call(b, tokens.dashboard, 'GET', `/api/sessions/${sid}/turns`)).body as unknown as TurnSummary[];
    await waitFor(async () => (await turns()).some((t) => t.status === 'completed'), 60_000, 'the first turn completed');

    // a message posted on B reaches the idle agent on A's runner at once
    const before = model.requests.length;
    expect((await call(b, tokens.operator, 'POST', `/api/sessions/${sid}/messages`, { text: 'second prompt' })).status).toBe(201);
    await waitFor(async () => model!.requests.slice(before).some((r) => JSON.stringify(r.messages).includes('second prompt')), 30_000, 'the model sees the message');

    const pid = runner.logs().find((l) => l.msg === 'agent started')?.pid as number | undefined;
    expect(pid).toEqual(expect.any(Number));
    expect((await call(b, tokens.operator, 'POST', `/api/sessions/${sid}/stop`, {})).status).toBe(202);
    await waitFor(async () => (await getSession(b, sid, tokens.dashboard)).lifecycle.lastRun?.status === 'cancelled', 30_000, 'the run cancelled');
    await waitFor(async () => !alive(pid!), 10_000, 'the agent gone');
  });
});
