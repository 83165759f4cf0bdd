/**
 * What runs on a machine (issue 45), end to end: a real hub process, a real `session-hub runner`
 * process and the real Claude Code CLI against a scripted model server. An option planted as a
 * session id by an agent token (hooks) or a runner token (update-metadata) never reaches a command
 * line and its command never runs; three Continues at once start one agent, and Stop leaves none;
 * the runner itself refuses a second spawn of a session it drives (a hub that sent two).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { ListedMachine } from '../../shared/protocol/machines.js';
import type { SessionSnapshot, TurnSummary } from '../../shared/protocol/session.js';
import { startAnthropicServer } from '../agents/helpers/anthropic-server.js';
import type { ModelServer } from '../agents/helpers/model-server.js';
import { closeAllClients, connectRunner, waitFor } from '../helpers/clients.js';
import { closeTestHubsAfterEach, startTestHub } from '../helpers/hub.js';
import { spawnHub, stopHubsAfterEach, type HubProcess } from '../helpers/hub-process.js';
import { alive } from '../helpers/process-alive.js';
import { TEST_TOKENS } from '../helpers/tokens.js';
import { claudeHome, type ClaudeHome } from './helpers/claude-home.js';
import { spawnRunner, type RunnerProcess } from './helpers/runner-process.js';

stopHubsAfterEach();
closeTestHubsAfterEach();
let model: ModelServer | undefined;
let home: ClaudeHome | undefined;
let runner: RunnerProcess | undefined;
afterEach(async () => {
  closeAllClients();
  await runner?.stop();
  await model?.close();
  home?.remove();
});

function api(hub: HubProcess) {
  return async (method: string, path: string, body?: unknown, token: string = TEST_TOKENS.operator) => {
    const response = await fetch(`${hub.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
}

/** A hub process, or (`inProcess`) the hub in this process, whose own calls to the machine a test can make. */
async function setup(options: { inProcess?: boolean; runnerArgs?: string[] } = {}) {
  model = await startAnthropicServer({ tools: [], finalText: 'All done.' });
  home = claudeHome(model.url);
  const hub = options.inProcess ? await startTestHub() : await spawnHub();
  const call = api(hub as HubProcess);
  runner = spawnRunner({ hubUrl: hub.url, token: TEST_TOKENS.machine, roots: [home.root], env: { ...home.env, XDG_CONFIG_HOME: home.root }, ...(options.runnerArgs ? { args: options.runnerArgs } : {}) });
  let machine: ListedMachine | undefined;
  await waitFor(async () => {
    machine = ((await call('GET', '/api/machines')).body.machines as ListedMachine[]).find((m) => m.online);
    return machine !== undefined;
  }, 30_000, `the runner registers; output:\n${runner.output()}`);
  return { hub, call, machineId: machine!.machineId };
}

const turnList = async (call: ReturnType<typeof api>, sid: string) => {
  const body = (await call('GET', `/api/sessions/${sid}/turns`)).body as unknown as TurnSummary[] | { turns: TurnSummary[] };
  return Array.isArray(body) ? body : body.turns;
};
const snapshot = async (call: ReturnType<typeof api>, sid: string) => (await call('GET', `/api/sessions/${sid}`)).body as unknown as SessionSnapshot;

/** A session started from HTTP, its first turn completed, then stopped (run cancelled). */
async function stoppedAfterOneTurn(call: ReturnType<typeof api>, machineId: string) {
  const started = await call('POST', `/api/machines/${machineId}/sessions`, { flavor: 'claude', path: home!.dir, prompt: 'first prompt', permissionMode: 'default' });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const sid = started.body.sid as string;
  await waitFor(async () => (await turnList(call, sid)).some((t) => t.status === 'completed'), 60_000, `first turn completed; runner:\n${runner!.output()}`);
  expect((await call('POST', `/api/sessions/${sid}/stop`)).status).toBe(202);
  await waitFor(async () => (await snapshot(call, sid)).lifecycle.lastRun?.status === 'cancelled', 30_000, 'run cancelled');
  return sid;
}

/** The command lines of every process of this user that hold `needle` (the agents are the runner's children). */
/**
 * The agent's command line once it runs: a spawn is acked when its session exists on the hub, and a
 * resumed agent's id is known before its guard has started the CLI, so the line may come a moment later.
 */
async function agentCommandLines(needle: string): Promise<string[]> {
  await waitFor(() => commandLinesWith(needle).length > 0, 10_000, `a command line holding ${needle}`);
  return commandLinesWith(needle);
}

/** The command lines holding `needle`; the runner's agent guards' (each repeats its agent's command line after its own) only with `guards`. */
function commandLinesWith(needle: string, { guards = false } = {}): string[] {
  const lines: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const line = readFileSync(join('/proc', entry, 'cmdline'), 'utf8').split('\0').join(' ');
      if (line.includes(needle) && (guards || !line.includes('agent-guard.js'))) lines.push(line);
    } catch {
      // the process ended meanwhile
    }
  }
  return lines;
}

describe('what runs on a machine (real runner, real Claude Code)', () => {
  it('an option planted as a session id, by an agent token\'s hooks or a runner token\'s update-metadata, is refused and never runs', async () => {
    const { hub, call, machineId } = await setup();
    const proof = join(home!.root, 'proof');
    const option = `--settings={"apiKeyHelper":"touch ${proof}; echo k"}`;
    // the agent token in every agent's environment: hooks of a "terminal session" on this machine, under its root
    const where = { host: hostname(), machineId };
    const event = (seq: number, payload: Record<string, unknown>) => ({ id: randomUUID(), flavor: 'claude', firedAt: Date.now(), seq, ...where, payload: { session_id: option, cwd: home!.dir, ...payload } });
    const hooks = await call('POST', '/api/hooks', { events: [event(0, { hook_event_name: 'SessionStart', source: 'startup' }), event(1, { hook_event_name: 'SessionEnd', reason: 'other' })] }, TEST_TOKENS.agent);
    expect((hooks.body.results as { outcome: string }[]).map((r) => r.outcome)).toEqual(['failed', 'failed']);
    expect(((await call('GET', '/api/sessions')).body.sessions as unknown[]).length).toBe(0);

    // a runner token rewrites the resume token of a session this machine ran
    const sid = await stoppedAfterOneTurn(call, machineId);
    const own = (await snapshot(call, sid)).metadata.value.claudeSessionId as string;
    const other = await connectRunner(hub.url, TEST_TOKENS.runner);
    const rewrite = await other.emitWithAck('update-metadata', { sid, expectedVersion: (await snapshot(call, sid)).metadata.version, patch: { claudeSessionId: option } });
    expect(rewrite).toMatchObject({ result: 'error', code: 'invalid_payload' });

    // the Continue resumes the agent's own id, passed attached to its option
    const before = model!.requests.length;
    const continued = await call('POST', `/api/sessions/${sid}/continue`, { prompt: 'go on', policy: 'force' });
    expect(continued.status, JSON.stringify(continued.body)).toBe(202);
    await waitFor(async () => model!.requests.slice(before).some((r) => JSON.stringify(r.messages).includes('go on')), 60_000, 'the model sees the continued prompt');
    expect(await agentCommandLines(`--resume=${own}`)).toHaveLength(1);
    expect(commandLinesWith('--settings', { guards: true })).toEqual([]);
    expect(existsSync(proof)).toBe(false);
  }, 180_000);

  it('a mode and a directory a runner token wrote into metadata do not reach the agent: the Continue runs in the recorded mode and directory', async () => {
    const { hub, call, machineId } = await setup({ runnerArgs: ['--allow-bypass'] });
    const sid = await stoppedAfterOneTurn(call, machineId);
    const token = (await snapshot(call, sid)).metadata.value.claudeSessionId as string;
    const other = await connectRunner(hub.url, TEST_TOKENS.runner);
    const planted = await other.emitWithAck('update-metadata', { sid, expectedVersion: (await snapshot(call, sid)).metadata.version, patch: { permissionMode: 'bypassPermissions', path: home!.root } });
    expect(planted).toMatchObject({ result: 'success' });
    const continued = await call('POST', `/api/sessions/${sid}/continue`, { prompt: 'go on', policy: 'force' });
    expect(continued.status, JSON.stringify(continued.body)).toBe(202);
    const lines = await agentCommandLines(token);
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line).toContain(`--resume=${token}`);
    expect(line).toContain('--permission-mode=default');
    expect(line).not.toContain('bypassPermissions');
    const started = runner!.logs().filter((l) => l.msg === 'agent started' && l.resume === true);
    expect(started).toMatchObject([{ path: home!.dir, permissionMode: 'default' }]);
  }, 180_000);

  it('three Continues at once start one agent; Stop then leaves none', async () => {
    const { call, machineId } = await setup();
    const sid = await stoppedAfterOneTurn(call, machineId);
    const token = (await snapshot(call, sid)).metadata.value.claudeSessionId as string;
    const answers = await Promise.all([1, 2, 3].map((n) => call('POST', `/api/sessions/${sid}/continue`, { prompt: `go on ${n}`, policy: 'force' })));
    expect(answers.map((a) => a.status).sort(), JSON.stringify(answers.map((a) => a.body))).toEqual([202, 409, 409]);
    expect(answers.filter((a) => a.status === 409).map((a) => a.body.error)).toEqual(['session_running', 'session_running']);
    const started = runner!.logs().filter((l) => l.msg === 'agent started' && l.resume === true);
    expect(started).toHaveLength(1);
    const pid = started[0]!.pid as number;
    expect(alive(pid)).toBe(true);
    expect(await agentCommandLines(`--resume=${token}`)).toHaveLength(1);

    expect((await call('POST', `/api/sessions/${sid}/stop`)).status).toBe(202);
    await waitFor(async () => (await snapshot(call, sid)).lifecycle.lastRun?.status === 'cancelled', 30_000, 'run cancelled');
    expect(alive(pid)).toBe(false);
    expect(commandLinesWith(`--resume=${token}`, { guards: true })).toEqual([]);
    // a second Stop has nothing to stop: no agent of this session runs anywhere
    expect(await call('POST', `/api/sessions/${sid}/stop`)).toMatchObject({ status: 409, body: { error: 'not_runner_driven' } });
  }, 180_000);

  it('the runner itself refuses a second spawn of a session it drives or is starting (a hub that sent two)', async () => {
    const { hub, call, machineId } = await setup({ inProcess: true });
    const sid = await stoppedAfterOneTurn(call, machineId);
    const token = (await snapshot(call, sid)).metadata.value.claudeSessionId as string;
    const { deps } = hub as Awaited<ReturnType<typeof startTestHub>>;
    // what a hub without the claim would send for two Continues: the same resume, twice at once
    const spawn = () => deps.machines!.ask(machineId, 'machine-spawn', { requestId: randomUUID(), flavor: 'claude', path: home!.dir, prompt: 'go on', resume: { sid, tokenKey: 'claudeSessionId', token }, requestedBy: 'test' }, 30_000);
    const answers = await Promise.all([spawn(), spawn()]);
    expect(answers.filter((answer) => answer?.ok === true)).toHaveLength(1);
    expect(answers.find((answer) => answer?.ok === false)).toMatchObject({ ok: false, error: { code: 'session_running' } });
    expect(runner!.logs().filter((l) => l.msg === 'agent started' && l.resume === true)).toHaveLength(1);
    expect(await agentCommandLines(`--resume=${token}`)).toHaveLength(1);
    expect((await call('POST', `/api/sessions/${sid}/stop`)).status).toBe(202);
    await waitFor(async () => (await snapshot(call, sid)).lifecycle.lastRun?.status === 'cancelled', 30_000, 'run cancelled');
    expect(commandLinesWith(`--resume=${token}`, { guards: true })).toEqual([]);
  }, 180_000);
});
