/**
 * The runner process against what issue 45 found, end to end: a real hub process, real
 * `session-hub runner` processes and the real Claude Code CLI against a scripted model server.
 * - The machine token: an agent's Bash tool reads every process environment and command line it can
 *   and finds the token nowhere when the runner reads it from SESSION_HUB_MACHINE_TOKEN_FILE (and
 *   finds it when it is in the runner's environment: what the start warning says).
 * - A person's message reaches a continued agent after the runner restarted, and in a session that
 *   was started in a terminal (its hooks took its messages before).
 * - kill -9 of the hub while the agent answers: the runner's reports are retried, and once the hub
 *   is back on the same data the turn has its prompt and its answer.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ListedMachine } from '../../shared/protocol/machines.js';
import type { SessionSnapshot, TurnSummary } from '../../shared/protocol/session.js';
import { startAnthropicServer, type ScriptedTurn } from '../agents/helpers/anthropic-server.js';
import type { ModelServer } from '../agents/helpers/model-server.js';
import { runCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/clients.js';
import { spawnHub, stopHubsAfterEach, type HubProcess } from '../helpers/hub-process.js';
import { TEST_TOKENS } from '../helpers/tokens.js';
import { claudeHome, type ClaudeHome } from './helpers/claude-home.js';
import { spawnRunner, type RunnerProcess } from './helpers/runner-process.js';

stopHubsAfterEach();
let model: ModelServer | undefined;
let home: ClaudeHome | undefined;
const runners: RunnerProcess[] = [];
afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.stop();
  await model?.close();
  home?.remove();
});

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: Record<string, unknown> }>;

function api(hub: { url: string }, token: string = TEST_TOKENS.operator): Call {
  return async (method, path, body) => {
    const response = await fetch(`${hub.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
}

/** A runner on this test's Claude home (its machine id and taker key kept under it, as a restart finds them). */
function startRunner(hub: { url: string }, token: { token?: string; tokenFile?: string } = { token: TEST_TOKENS.machine }): RunnerProcess {
  const runner = spawnRunner({ hubUrl: hub.url, ...token, roots: [home!.root], env: { ...home!.env, XDG_CONFIG_HOME: home!.root } });
  runners.push(runner);
  return runner;
}

async function onlineMachine(call: Call, runner: RunnerProcess): Promise<string> {
  let machine: ListedMachine | undefined;
  await waitFor(async () => {
    machine = ((await call('GET', '/api/machines')).body.machines as ListedMachine[]).find((m) => m.online);
    return machine !== undefined;
  }, 30_000, `the runner registers; output:\n${runner.output()}`);
  return machine!.machineId;
}

async function setup(turn: ScriptedTurn, hubEnv: Record<string, string> = {}) {
  model = await startAnthropicServer(turn);
  home = claudeHome(model.url);
  const hub = await spawnHub({ env: hubEnv });
  return { hub, call: api(hub) };
}

/** Allows whatever the agent asks meanwhile (a Bash tool) until `done`. */
async function allowUntil(call: Call, sid: string, done: () => Promise<boolean> | boolean, what: string, timeoutMs = 90_000): Promise<void> {
  await waitFor(async () => {
    const approvals = ((await call('GET', `/api/sessions/${sid}/approvals`)).body.approvals ?? []) as { approvalId: string; status: string }[];
    for (const pending of approvals.filter((a) => a.status === 'pending')) await call('POST', `/api/sessions/${sid}/approvals/${pending.approvalId}`, { decision: 'allow' });
    return done();
  }, timeoutMs, what);
}

async function turnList(call: Call, sid: string): Promise<TurnSummary[]> {
  const body = (await call('GET', `/api/sessions/${sid}/turns`)).body as unknown as TurnSummary[] | { turns: TurnSummary[] };
  return Array.isArray(body) ? body : body.turns;
}

const session = async (call: Call, sid: string) => (await call('GET', `/api/sessions/${sid}`)).body as unknown as SessionSnapshot;
const modelSaw = (text: string, from = 0) => model!.requests.slice(from).some((r) => JSON.stringify(r.messages).includes(text));

/** The message's state as the page lists it. */
async function messageState(call: Call, sid: string, id: string): Promise<string | undefined> {
  const messages = (await call('GET', `/api/sessions/${sid}/messages`)).body.messages as { id: string; state?: string; status?: string }[] | undefined;
  const message = messages?.find((m) => m.id === id);
  return message?.state ?? message?.status;
}

/** Everything an agent's tool can read of every process's environment and command line, and its own environment, into `scan.txt`. */
const SCAN = 'for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do tr "\\0" "\\n" < "$f"; echo; done > scan.txt 2>/dev/null; env >> scan.txt; echo done > scan.done';

describe('the machine token, as an agent sees the machine', () => {
  async function scanWith(token: { tokenFile: string } | { token: string }, machineToken: string) {
    const hub = setupHub!;
    const runner = startRunner(hub.hub, token);
    const machineId = await onlineMachine(hub.call, runner);
    const started = await hub.call('POST', `/api/machines/${machineId}/sessions`, { flavor: 'claude', path: home!.dir, prompt: 'scan' });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    await allowUntil(hub.call, started.body.sid as string, () => existsSync(join(home!.dir, 'scan.done')), `the scan ran; runner:\n${runner.output()}`);
    const scan = readFileSync(join(home!.dir, 'scan.txt'), 'utf8');
    // it did read the runner's own environment (and so would have found the token there)
    expect(scan).toContain(`XDG_CONFIG_HOME=${home!.root}`);
    return { scan, found: scan.includes(machineToken), runner };
  }

  let setupHub: { hub: HubProcess; call: Call } | undefined;
  /**
   * A hub whose tokens are in no environment (the test tokens are in the hub's own, which an agent
   * of the same user could read too): it makes its own on first start; a machine token made with
   * the CLI, known only to this test until it puts it where the runner reads it.
   */
  async function freshMachineToken(): Promise<string> {
    model = await startAnthropicServer({ tools: [{ name: 'Bash', input: { command: SCAN, description: 'scan' } }], finalText: 'Scanned.' });
    home = claudeHome(model.url);
    const hub = await spawnHub({ env: { SESSION_HUB_TOKENS: '' } });
    await waitFor(() => /admin\s+default\s+(shub_\S+)/.test(hub.output()), 10_000, 'the generated tokens');
    setupHub = { hub, call: api(hub, /admin\s+default\s+(shub_\S+)/.exec(hub.output())![1]!) };
    const created = await runCli(['token', 'create', '--role', 'machine', '--label', 'scan test', '--data', hub.dataDir]);
    expect(created.code, created.stderr).toBe(0);
    const token = created.stdout.trim();
    // a running hub accepts a new token within seconds
    await waitFor(async () => (await fetch(`${hub.url}/api/machines`, { headers: { authorization: `Bearer ${token}` } })).status !== 401, 10_000, 'the hub knows the new token');
    return token;
  }

  it('from SESSION_HUB_MACHINE_TOKEN_FILE (mode 0600): found in no process environment or command line the agent can read', async () => {
    const token = await freshMachineToken();
    const tokenFile = join(home!.root, 'machine-token');
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    const { scan, found, runner } = await scanWith({ tokenFile }, token);
    expect(scan).toContain(`SESSION_HUB_MACHINE_TOKEN_FILE=${tokenFile}`);
    expect(found).toBe(false);
    expect(runner.output()).not.toContain('SESSION_HUB_MACHINE_TOKEN is in the runner\'s environment');
  }, 180_000);

  it('from SESSION_HUB_MACHINE_TOKEN: the agent finds it in the runner\'s environment, as the start warning says', async () => {
    const token = await freshMachineToken();
    const { found, runner } = await scanWith({ token }, token);
    expect(found).toBe(true);
    expect(runner.output()).toContain('SESSION_HUB_MACHINE_TOKEN is in the runner\'s environment');
  }, 180_000);
});

describe('a person\'s message to a continued session', () => {
  const TURN: ScriptedTurn = { tools: [{ name: 'Bash', input: { command: 'true', description: 'nothing' } }], finalText: 'All done.' };

  it('after the runner restarted (kill -9, started again): delivered to the continued agent', async () => {
    const { hub, call } = await setup(TURN, { SESSION_HUB_RUN_GRACE_MS: '2000', SESSION_HUB_SWEEP_MS: '500' });
    const first = startRunner(hub);
    const machineId = await onlineMachine(call, first);
    const started = await call('POST', `/api/machines/${machineId}/sessions`, { flavor: 'claude', path: home!.dir, prompt: 'first prompt' });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const sid = started.body.sid as string;
    await allowUntil(call, sid, async () => (await turnList(call, sid)).some((t) => t.status === 'completed'), 'first turn completed');

    // the runner keeps its taker key beside its machine id, readable by its user alone
    const machineFile = join(home!.root, 'session-hub', 'machine.json');
    const kept = JSON.parse(readFileSync(machineFile, 'utf8')) as { machineId: string; takerKey: string };
    expect(kept).toEqual({ machineId, takerKey: expect.stringMatching(/^[A-Za-z0-9_-]{32,}$/) });
    expect(statSync(machineFile).mode & 0o777).toBe(0o600);

    await first.kill9();
    await waitFor(async () => (await session(call, sid)).lifecycle.lastRun?.status === 'interrupted', 30_000, 'run interrupted');
    const second = startRunner(hub);
    await onlineMachine(call, second);
    expect(JSON.parse(readFileSync(machineFile, 'utf8'))).toEqual(kept);
    const forced = await call('POST', `/api/sessions/${sid}/continue`, { prompt: 'go on', policy: 'force' });
    expect(forced.status, JSON.stringify(forced.body)).toBe(202);
    await allowUntil(call, sid, async () => (await turnList(call, sid)).filter((t) => t.status === 'completed').length === 2, `the continued turn completed; runner:\n${second.output()}`);

    const before = model!.requests.length;
    const sent = await call('POST', `/api/sessions/${sid}/messages`, { text: 'after the restart' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    await allowUntil(call, sid, () => modelSaw('after the restart', before), `the model sees the message; runner:\n${second.output()}`, 30_000);
    // the runner acks the message once it handed it to the agent; the agent may reach the model
    // before that ack is stored: delivered follows within moments (CI run 7 saw it queued once)
    const id = (sent.body.message as { id: string }).id;
    await waitFor(async () => (await messageState(call, sid, id)) === 'delivered', 10_000, 'the message reads delivered');
  }, 240_000);

  it('started in a terminal (its hooks registered their taker), continued from the page: delivered to the continued agent', async () => {
    const { hub, call } = await setup(TURN);
    const runner = startRunner(hub);
    const machineId = await onlineMachine(call, runner);
    // the terminal's Claude Code: its hooks, with an agent token and their own taker key, name this machine
    const tag = randomUUID();
    const taker = { key: randomBytes(24).toString('base64url'), process: 'hook pid 1 on terminal' };
    const hook = (payload: Record<string, unknown>, seq: number) => ({ id: randomUUID(), flavor: 'claude', firedAt: Date.now(), seq, payload: { session_id: tag, cwd: home!.dir, ...payload }, taker, host: hostname(), machineId });
    const posted = await fetch(`${hub.url}/api/hooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_TOKENS.agent}`, 'content-type': 'application/json' },
      body: JSON.stringify({ events: [hook({ hook_event_name: 'SessionStart', source: 'startup' }, 0), hook({ hook_event_name: 'SessionEnd', reason: 'exit' }, 1)] }),
    });
    expect(posted.status, await posted.clone().text()).toBe(200);
    const sid = ((await call('GET', '/api/sessions')).body.sessions as SessionSnapshot[]).find((s) => s.tag === tag)!.sid;

    const continued = await call('POST', `/api/sessions/${sid}/continue`, { prompt: 'go on', policy: 'force' });
    expect(continued.status, JSON.stringify(continued.body)).toBe(202);
    await allowUntil(call, sid, async () => (await turnList(call, sid)).some((t) => t.status === 'completed'), `the continued turn completed; runner:\n${runner.output()}`);

    const before = model!.requests.length;
    const sent = await call('POST', `/api/sessions/${sid}/messages`, { text: 'from the page' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    await allowUntil(call, sid, () => modelSaw('from the page', before), `the model sees the message; runner:\n${runner.output()}`, 30_000);
  }, 240_000);
});

describe('kill -9 of the hub while the agent answers', () => {
  it('the runner retries its reports: once the hub is back on the same data, the turn has its prompt and its answer', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let asked!: () => void;
    const modelAsked = new Promise<void>((resolve) => (asked = resolve));
    const { hub, call } = await setup({ tools: [], finalText: 'Answered while the hub was down.', hold: () => (asked(), released) });
    const runner = startRunner(hub);
    const machineId = await onlineMachine(call, runner);
    const started = await call('POST', `/api/machines/${machineId}/sessions`, { flavor: 'claude', path: home!.dir, prompt: 'first prompt' });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const sid = started.body.sid as string;

    await modelAsked;
    await hub.kill9();
    release(); // the agent answers while no hub is there
    await waitFor(() => model!.closedAt.length > 0, 30_000, 'the model answered');
    // past two of the runner's request timeouts (5 s each): its reports of the answer (usage, then the turn's end) have failed once
    await new Promise((resolve) => setTimeout(resolve, 12_000));
    const again = await spawnHub({ dataDir: hub.dataDir, port: hub.port });
    const callAgain = api(again);
    await waitFor(async () => (await turnList(callAgain, sid)).some((t) => t.response === 'Answered while the hub was down.'), 60_000, `the answer reported; runner:\n${runner.output()}`);
    const turns = await turnList(callAgain, sid);
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatchObject({ prompt: 'first prompt', response: 'Answered while the hub was down.', status: 'completed' });
    expect(turns[0]!.usage.length).toBeGreaterThan(0);
    expect(runner.logs().filter((l) => l.msg === 'report failed')).toEqual([]);
  }, 240_000);
});
