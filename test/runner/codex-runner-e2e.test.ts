/**
 * The machine runner driving the real Codex CLI (`codex app-server`, pinned) against a scripted
 * Responses server, through a real hub process and a real `session-hub runner` process (one of each
 * for the whole file: the cases follow one session). Start over HTTP with the command approved over
 * HTTP, a message reaching the idle agent, interrupt, stop (run cancelled, agent gone); continue
 * (the thread resumed, the model seeing the earlier turns); and a thread Codex no longer has
 * (its rollout deleted): resume-failed, a fresh thread with the turns replayed.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Activity, SessionSnapshot, TurnSummary } from '../../shared/protocol/session.js';
import type { ModelServer } from '../agents/helpers/model-server.js';
import { SCRIPTED_CODEX_USAGE, startResponsesServer } from '../agents/helpers/responses-server.js';
import { waitFor } from '../helpers/clients.js';
import type { HubProcess } from '../helpers/hub-process.js';
import { alive } from '../helpers/process-alive.js';
import { codexHome as codexHomeIn, type CodexHome } from './helpers/codex-home.js';
import { startHubAndRunner, type HubAndRunner } from './helpers/hub-and-runner.js';
import type { RunnerProcess } from './helpers/runner-process.js';

let model: ModelServer;
let parts: HubAndRunner;
let hub: HubProcess;
let runner: RunnerProcess;
let home: CodexHome;
let root: string;
let dir: string;
let codexHome: string;
let machineId: string;
let sid: string;

const call = (method: string, path: string, body?: unknown) => parts.call(method, path, body);

const snapshot = async () => (await call('GET', `/api/sessions/${sid}`)).body as unknown as SessionSnapshot;
const turnList = async () => {
  const body = (await call('GET', `/api/sessions/${sid}/turns`)).body as unknown as TurnSummary[] | { turns: TurnSummary[] };
  return Array.isArray(body) ? body : body.turns;
};
const modelSaw = (from: number, text: string) => model.requests.slice(from).some((r) => JSON.stringify(r.input).includes(text));

async function pendingApproval(): Promise<{ approvalId: string; tool: string; input: Record<string, unknown> }> {
  let found: { approvalId: string; status: string; tool: string; input: Record<string, unknown> } | undefined;
  await waitFor(async () => {
    const approvals = (await call('GET', `/api/sessions/${sid}/approvals`)).body.approvals as NonNullable<typeof found>[];
    found = approvals.find((a) => a.status === 'pending');
    return found !== undefined;
  }, 60_000, `a pending approval; runner:\n${runner.output()}`);
  return found!;
}

function agentPids(): number[] {
  return runner.logs().filter((l) => l.msg === 'agent started' && typeof l.pid === 'number').map((l) => l.pid as number);
}

async function stopAndWaitCancelled(): Promise<void> {
  expect((await call('POST', `/api/sessions/${sid}/stop`)).status).toBe(202);
  await waitFor(async () => (await snapshot()).lifecycle.lastRun?.status === 'cancelled', 30_000, 'run cancelled');
}

beforeAll(async () => {
  model = await startResponsesServer({ commands: ['touch approved.txt'], escalate: true, finalText: 'All done.' });
  home = codexHomeIn(model.url);
  ({ root, dir, codexHome } = home);
  parts = await startHubAndRunner({ roots: [root], env: home.env });
  ({ hub, runner } = parts);
  expect(parts.machine.agents.map((a) => a.flavor)).toContain('codex');
  machineId = parts.machine.machineId;
}, 60_000);

afterAll(async () => {
  await parts?.stop();
  await model?.close();
  home?.remove();
});

describe('session-hub runner with the real Codex CLI (app-server)', () => {
  it('starts from HTTP, asks approval over HTTP, takes a message while idle, interrupts, and stops the whole agent', async () => {
    const started = await call('POST', `/api/machines/${machineId}/sessions`, { flavor: 'codex', path: dir, prompt: 'first prompt' });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    sid = started.body.sid as string;
    expect((await snapshot()).metadata.value).toMatchObject({ flavor: 'codex', path: dir, machineId, codexSessionId: expect.any(String) });

    const approval = await pendingApproval();
    expect(approval).toMatchObject({ tool: 'Bash', input: { command: expect.stringContaining('touch approved.txt') } });
    expect(existsSync(join(dir, 'approved.txt')), 'nothing ran before the decision').toBe(false);
    // the person takes a moment: the command's span (its item's start to its end) includes it, and is not 0
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await call('POST', `/api/sessions/${sid}/approvals/${approval.approvalId}`, { decision: 'allow' })).status).toBe(200);
    await waitFor(async () => (await turnList()).some((t) => t.status === 'completed'), 60_000, `first turn completed; runner:\n${runner.output()}`);
    expect((await turnList())[0]).toMatchObject({ prompt: 'first prompt', response: 'All done.', status: 'completed' });
    const [command] = ((await turnList())[0] as TurnSummary & { activities: Activity[] }).activities;
    expect(command).toMatchObject({ tool: 'Bash', status: 'done' });
    expect(command!.endedAt! - command!.at).toBeGreaterThanOrEqual(300);
    expect(existsSync(join(dir, 'approved.txt'))).toBe(true);
    // two model requests (the command, then the closing text), each as the scripted server counts it
    expect((await snapshot()).usage).toMatchObject({ inputTokens: 2 * SCRIPTED_CODEX_USAGE.input_tokens, outputTokens: 2 * SCRIPTED_CODEX_USAGE.output_tokens, cacheReadTokens: 0 });

    // the agent idles: a person's message is its next input, at once
    const before = model.requests.length;
    expect((await call('POST', `/api/sessions/${sid}/messages`, { text: 'second prompt' })).status).toBe(201);
    await waitFor(async () => modelSaw(before, 'second prompt'), 30_000, 'the model sees the message');
    await pendingApproval();
    expect((await call('POST', `/api/sessions/${sid}/interrupt`)).status).toBe(202);
    await waitFor(async () => (await turnList()).filter((t) => t.status !== 'open').length === 2, 30_000, `second turn closed; runner:\n${runner.output()}`);
    expect((await turnList())[1]).toMatchObject({ prompt: 'second prompt', status: 'aborted' });

    const [pid] = agentPids();
    expect(pid).toBeDefined();
    await stopAndWaitCancelled();
    expect(alive(pid!)).toBe(false);
  }, 180_000);

  it('continues the stopped session in its thread, the model seeing the earlier turns; a thread Codex lost goes through resume-failed', async () => {
    const thread = ((await snapshot()).metadata.value as Record<string, unknown>).codexSessionId;
    const refused = await call('POST', `/api/sessions/${sid}/continue`, { prompt: 'go on' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('resume_unsafe');
    let before = model.requests.length;
    const forced = await call('POST', `/api/sessions/${sid}/continue`, { prompt: 'go on', policy: 'force' });
    expect(forced.status, JSON.stringify(forced.body)).toBe(202);
    expect(forced.body.sid).toBe(sid);
    await waitFor(async () => modelSaw(before, 'go on'), 60_000, `the model sees the continued prompt; runner:\n${runner.output()}`);
    const resumed = JSON.stringify(model.requests.slice(before).find((r) => JSON.stringify(r.input).includes('go on'))!.input);
    expect(resumed).toContain('first prompt');
    expect(resumed).toContain('second prompt');
    expect(((await snapshot()).metadata.value as Record<string, unknown>).codexSessionId).toBe(thread);
    await pendingApproval();
    await stopAndWaitCancelled();

    // the vendor forgot the thread: thread/resume fails, the hub hears resume-failed, a fresh thread gets the turns replayed
    rmSync(join(codexHome, 'sessions'), { recursive: true, force: true });
    before = model.requests.length;
    const again = await call('POST', `/api/sessions/${sid}/continue`, { prompt: 'once more', policy: 'force' });
    expect(again.status, JSON.stringify(again.body)).toBe(202);
    await waitFor(async () => runner.logs().some((l) => String(l.msg).startsWith('resume rejected')), 60_000, `resume rejected; runner:\n${runner.output()}`);
    await waitFor(async () => modelSaw(before, 'replayed'), 60_000, `the fresh thread gets the replay; runner:\n${runner.output()}`);
    expect(JSON.stringify(model.requests.slice(before).find((r) => JSON.stringify(r.input).includes('replayed'))!.input)).toContain('first prompt');
    await waitFor(async () => {
      const token = ((await snapshot()).metadata.value as Record<string, unknown>).codexSessionId;
      return typeof token === 'string' && token !== thread;
    }, 30_000, 'the new thread id reported');
    expect(agentPids().filter(alive).length).toBeLessThanOrEqual(1);
  }, 240_000);
});
