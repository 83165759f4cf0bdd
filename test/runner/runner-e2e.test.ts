/**
 * The machine runner end to end: a real hub process, a real `session-hub runner` process and the
 * real Claude Code CLI against a scripted model server. Start over HTTP with the tool approved over
 * HTTP, a message reaching the idle agent, interrupt, stop (run cancelled, agent gone), and kill -9
 * of the runner mid-turn (run interrupted after its grace, the agent does not live on), and a continue
 * whose id Claude Code no longer knows (resume-failed, a fresh agent with the turns replayed).
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ListedMachine } from '../../shared/protocol/machines.js';
import type { Activity, SessionSnapshot, TurnSummary } from '../../shared/protocol/session.js';
import { startAnthropicServer } from '../agents/helpers/anthropic-server.js';
import type { ModelServer } from '../agents/helpers/model-server.js';
import { waitFor } from '../helpers/clients.js';
import { spawnHub, stopHubsAfterEach, type HubProcess } from '../helpers/hub-process.js';
import { TEST_TOKENS } from '../helpers/tokens.js';
import { claudeHome, type ClaudeHome } from './helpers/claude-home.js';
import { alive } from '../helpers/process-alive.js';
import { spawnRunner, type RunnerProcess } from './helpers/runner-process.js';

stopHubsAfterEach();
let model: ModelServer | undefined;
let home: ClaudeHome | undefined;
let runner: RunnerProcess | undefined;
afterEach(async () => {
  await runner?.stop();
  await model?.close();
  home?.remove();
});

function api(hub: HubProcess) {
  return async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${hub.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${TEST_TOKENS.operator}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
}

async function setup(env: Record<string, string> = {}, runnerEnv: Record<string, string> = {}, command = 'touch approved.txt') {
  model = await startAnthropicServer({ tools: [{ name: 'Bash', input: { command, description: 'run a command' } }], finalText: 'All done.' });
  home = claudeHome(model.url);
  const hub = await spawnHub({ env });
  const call = api(hub);
  runner = spawnRunner({ hubUrl: hub.url, token: TEST_TOKENS.machine, roots: [home.root], env: { ...home.env, XDG_CONFIG_HOME: home.root, ...runnerEnv } });
  let machine: ListedMachine | undefined;
  await waitFor(async () => {
    machine = ((await call('GET', '/api/machines')).body.machines as ListedMachine[]).find((m) => m.online);
    return machine !== undefined;
  }, 30_000, `the runner registers; output:\n${runner.output()}`);
  expect(machine!.agents.map((a) => a.flavor)).toEqual(['claude']);
  return { hub, call, machineId: machine!.machineId };
}

async function pendingApproval(call: ReturnType<typeof api>, sid: string): Promise<string> {
  let id: string | undefined;
  await waitFor(async () => {
    const approvals = (await call('GET', `/api/sessions/${sid}/approvals`)).body.approvals as { approvalId: string; status: string }[];
    id = approvals.find((a) => a.status === 'pending')?.approvalId;
    return id !== undefined;
  }, 60_000, `a pending approval; runner:\n${runner!.output()}`);
  return id!;
}

const turns = async (call: ReturnType<typeof api>, sid: string) => (await call('GET', `/api/sessions/${sid}/turns`)).body as unknown as TurnSummary[] | { turns: TurnSummary[] };
const turnList = async (call: ReturnType<typeof api>, sid: string) => {
  const body = await turns(call, sid);
  return Array.isArray(body) ? body : body.turns;
};

/** A session started from HTTP, its tool allowed, its first turn completed, then stopped (run cancelled). */
async function stoppedAfterOneTurn() {
  const { call, machineId } = await setup();
  const started = await call('POST', `/api/machines/${machineId}/sessions`, { flavor: 'claude', path: home!.dir, prompt: 'first prompt' });
  const sid = started.body.sid as string;
  await call('POST', `/api/sessions/${sid}/approvals/${await pendingApproval(call, sid)}`, { decision: 'allow' });
  await waitFor(async () => (await turnList(call, sid)).some((t) => t.status === 'completed'), 60_000, 'first turn completed');
  expect((await call('POST', `/api/sessions/${sid}/stop`)).status).toBe(202);
  await waitFor(async () => ((await call('GET', `/api/sessions/${sid}`)).body as unknown as SessionSnapshot).lifecycle.lastRun?.status === 'cancelled', 30_000, 'run cancelled');
  return { call, sid };
}

describe('session-hub runner with the real Claude Code CLI', () => {
  it('starts from HTTP, asks approval over HTTP, takes a message while idle, interrupts, and stops the whole agent', async () => {
    const { call, machineId } = await setup();
    const started = await call('POST', `/api/machines/${machineId}/sessions`, { flavor: 'claude', path: home!.dir, prompt: 'first prompt' });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const sid = started.body.sid as string;
    const snapshot = (await call('GET', `/api/sessions/${sid}`)).body as unknown as SessionSnapshot;
    expect(snapshot.metadata.value).toMatchObject({ flavor: 'claude', path: home!.dir, machineId, claudeSessionId: expect.any(String) });

    const first = await pendingApproval(call, sid);
    // the person takes a moment: the tool's span (start to end) includes it, and is not 0
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await call('POST', `/api/sessions/${sid}/approvals/${first}`, { decision: 'allow' })).status).toBe(200);
    await waitFor(async () => (await turnList(call, sid)).some((t) => t.status === 'completed'), 60_000, 'first turn completed');
    const [turn1] = await turnList(call, sid);
    expect(turn1).toMatchObject({ prompt: 'first prompt', response: 'All done.', status: 'completed' });
    const [tool] = (turn1 as TurnSummary & { activities: Activity[] }).activities;
    expect(tool).toMatchObject({ tool: 'Bash', status: 'done' });
    expect(tool!.endedAt! - tool!.at).toBeGreaterThanOrEqual(300);

    // the agent idles: a person's message is its next input, at once
    const requestsBefore = model!.requests.length;
    expect((await call('POST', `/api/sessions/${sid}/messages`, { text: 'second prompt' })).status).toBe(201);
    await waitFor(async () => model!.requests.slice(requestsBefore).some((r) => JSON.stringify(r.messages).includes('second prompt')), 30_000, 'the model sees the message');
    await pendingApproval(call, sid);
    expect((await call('POST', `/api/sessions/${sid}/interrupt`)).status).toBe(202);
    await waitFor(async () => (await turnList(call, sid)).filter((t) => t.status !== 'open').length === 2, 30_000, 'second turn closed');
    expect((await turnList(call, sid))[1]).toMatchObject({ prompt: 'second prompt', status: 'aborted' });

    const pid = snapshotPid(runner!);
    expect(pid).toBeDefined();
    expect((await call('POST', `/api/sessions/${sid}/stop`)).status).toBe(202);
    await waitFor(async () => ((await call('GET', `/api/sessions/${sid}`)).body as unknown as SessionSnapshot).lifecycle.lastRun?.status === 'cancelled', 30_000, 'run cancelled');
    expect(alive(pid!)).toBe(false);
    expect(runner!.logs().filter((l) => l.msg === 'agent started' || l.msg === 'stop').map((l) => l.requestedBy)).toEqual([expect.any(String), expect.any(String)]);
  }, 240_000);

  it('an agent waiting on a person, then idle, stays present past the alive timeout: the runner heartbeats its session, thinking while a turn is open', async () => {
    const aliveTimeoutMs = 1500;
    const { call, machineId } = await setup({ SESSION_HUB_ALIVE_TIMEOUT_MS: String(aliveTimeoutMs), SESSION_HUB_SWEEP_MS: '300' }, { SESSION_HUB_ALIVE_EVERY_MS: '300' });
    const started = await call('POST', `/api/machines/${machineId}/sessions`, { flavor: 'claude', path: home!.dir, prompt: 'first prompt' });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const sid = started.body.sid as string;
    const session = async () => (await call('GET', `/api/sessions/${sid}`)).body as unknown as SessionSnapshot;
    const approval = await pendingApproval(call, sid);
    await new Promise((resolve) => setTimeout(resolve, 2 * aliveTimeoutMs + 500));
    expect(await session()).toMatchObject({ activity: 'waiting', presence: { active: true, thinking: true } });

    await call('POST', `/api/sessions/${sid}/approvals/${approval}`, { decision: 'allow' });
    await waitFor(async () => (await turnList(call, sid)).some((t) => t.status === 'completed'), 60_000, 'first turn completed');
    await new Promise((resolve) => setTimeout(resolve, 2 * aliveTimeoutMs + 500));
    expect(await session()).toMatchObject({ activity: 'idle', lifecycle: { state: 'running' }, presence: { active: true, thinking: false } });
  }, 180_000);

  it('kill -9 of the runner mid-turn, a tool running: the run ends interrupted after its grace, and within seconds neither the agent nor its tool exists', async () => {
    const { call, machineId } = await setup({ SESSION_HUB_RUN_GRACE_MS: '2000', SESSION_HUB_SWEEP_MS: '500' }, {}, 'sleep 300');
    const started = await call('POST', `/api/machines/${machineId}/sessions`, { flavor: 'claude', path: home!.dir, prompt: 'first prompt' });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const sid = started.body.sid as string;
    const leader = snapshotPid(runner!);
    expect(leader).toBeDefined();
    // every process of the agent's tree, the tool's sleep among them (allowed if Claude Code asks)
    let tree: ProcessInfo[] = [];
    await waitFor(async () => {
      const approvals = (await call('GET', `/api/sessions/${sid}/approvals`)).body.approvals as { approvalId: string; status: string }[];
      const pending = approvals.find((a) => a.status === 'pending');
      if (pending) await call('POST', `/api/sessions/${sid}/approvals/${pending.approvalId}`, { decision: 'allow' });
      tree = descendantsOf(leader!);
      return tree.some((p) => p.cmdline.includes('sleep 300'));
    }, 60_000, `the tool runs; runner:\n${runner!.output()}`);
    expect(tree.some((p) => /claude/.test(p.cmdline))).toBe(true);
    await runner!.kill9();
    const survivors = () => [leader!, ...tree.map((p) => p.pid)].filter((pid) => alive(pid));
    await waitFor(async () => survivors().length === 0, 5_000, `the agent and its tool gone after the runner's kill -9; alive: ${JSON.stringify(tree.filter((p) => alive(p.pid)))}`);
    await waitFor(async () => ((await call('GET', `/api/sessions/${sid}`)).body as unknown as SessionSnapshot).lifecycle.lastRun?.status === 'interrupted', 30_000, 'run interrupted');
  }, 180_000);

  it('continues a stopped session: refused as unsafe, then forced, the same sid, the model seeing the earlier turn', async () => {
    const { call, sid } = await stoppedAfterOneTurn();
    const refused = await call('POST', `/api/sessions/${sid}/continue`, { prompt: 'go on' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('resume_unsafe');
    const before = model!.requests.length;
    const forced = await call('POST', `/api/sessions/${sid}/continue`, { prompt: 'go on', policy: 'force' });
    expect(forced.status, JSON.stringify(forced.body)).toBe(202);
    expect(forced.body.sid).toBe(sid);
    await waitFor(async () => model!.requests.slice(before).some((r) => JSON.stringify(r.messages).includes('go on')), 60_000, 'the model sees the continued prompt');
    const request = JSON.stringify(model!.requests.slice(before).find((r) => JSON.stringify(r.messages).includes('go on'))!.messages);
    expect(request).toContain('first prompt');
  }, 180_000);

  it('an agent that no longer knows its id: resume-failed once, a fresh agent with the turns replayed, the same sid, its approval asked on that session', async () => {
    const { call, sid } = await stoppedAfterOneTurn();
    const expired = ((await call('GET', `/api/sessions/${sid}`)).body as unknown as SessionSnapshot).metadata.value.claudeSessionId;
    // the vendor forgot the conversation: Claude Code answers --resume with "No conversation found"
    rmSync(join(home!.home, '.claude', 'projects'), { recursive: true, force: true });

    const before = model!.requests.length;
    const forced = await call('POST', `/api/sessions/${sid}/continue`, { prompt: 'go on', policy: 'force' });
    expect(forced.status, JSON.stringify(forced.body)).toBe(202);
    expect(forced.body.sid).toBe(sid);
    // the fresh agent's tool call waits on the same hub session, though the agent's id is new
    await call('POST', `/api/sessions/${sid}/approvals/${await pendingApproval(call, sid)}`, { decision: 'allow' });
    await waitFor(async () => (await turnList(call, sid)).filter((t) => t.status === 'completed').length === 2, 60_000, `second turn completed; runner:\n${runner!.output()}`);
    const replayed = JSON.stringify(model!.requests.slice(before).find((r) => JSON.stringify(r.messages).includes('go on'))!.messages);
    expect(replayed).toContain('first prompt');
    expect(replayed).toContain('All done.');
    const snapshot = (await call('GET', `/api/sessions/${sid}`)).body as unknown as SessionSnapshot;
    expect(snapshot.metadata.value.claudeSessionId).toEqual(expect.any(String));
    expect(snapshot.metadata.value.claudeSessionId).not.toBe(expired);
    expect((await call('GET', '/api/sessions')).body.sessions).toHaveLength(1);
    expect(runner!.logs().filter((l) => l.msg === 'resume rejected: fresh start with the turns replayed')).toHaveLength(1);
  }, 240_000);

  it('SIGTERM of the runner stops its agents and their runs end interrupted', async () => {
    const { call, machineId } = await setup();
    const started = await call('POST', `/api/machines/${machineId}/sessions`, { flavor: 'claude', path: home!.dir, prompt: 'first prompt' });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const sid = started.body.sid as string;
    await pendingApproval(call, sid);
    const pid = snapshotPid(runner!);
    await runner!.stop();
    const snapshot = (await call('GET', `/api/sessions/${sid}`)).body as unknown as SessionSnapshot;
    expect(snapshot.lifecycle.lastRun?.status).toBe('interrupted');
    expect(alive(pid!)).toBe(false);
  }, 180_000);
});

interface ProcessInfo {
  pid: number;
  cmdline: string;
}

/** Every live process below `root` (by parent pid, read from /proc), with its command line. */
function descendantsOf(root: number): ProcessInfo[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // the fields after the command's closing parenthesis: state, ppid, ...
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  const found: ProcessInfo[] = [];
  const visit = (pid: number) => {
    for (const [child, parent] of parents) {
      if (parent !== pid) continue;
      let cmdline = '';
      try {
        cmdline = readFileSync(`/proc/${child}/cmdline`, 'utf8').replace(/\0/g, ' ');
      } catch {
        // exited meanwhile
      }
      found.push({ pid: child, cmdline });
      visit(child);
    }
  };
  visit(root);
  return found;
}

/** The agent's pid, as the runner logged it at session-start (its process group leader). */
function snapshotPid(process: RunnerProcess): number | undefined {
  const line = process.logs().find((l) => l.msg === 'agent started');
  return typeof line?.pid === 'number' ? line.pid : undefined;
}
