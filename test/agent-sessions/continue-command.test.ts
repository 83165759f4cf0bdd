/**
 * The way back to the terminal (issue 48, spec section 16): `session-hub continue <sid>` on the
 * machine, with a recording stand-in for the agent's CLI. A session the real runner drives with the
 * real Claude Code: the runner ends its agent (after its turn, or at once with --now), the run ends
 * `success`, and the stand-in starts in the session's directory with the resume id. Refusals say why.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { startAnthropicServer, type ScriptedTurn } from '../agents/helpers/anthropic-server.js';
import type { ModelServer } from '../agents/helpers/model-server.js';
import { waitFor } from '../helpers/clients.js';
import { runCli } from '../helpers/cli.js';
import { TEST_TOKENS } from '../helpers/tokens.js';
import { claudeHome, type ClaudeHome } from '../runner/helpers/claude-home.js';
import { startHubAndRunner, type HubAndRunner } from '../runner/helpers/hub-and-runner.js';

let model: ModelServer;
let home: ClaudeHome;
let parts: HubAndRunner;
let standIn: string;
let record: string;
const script: ScriptedTurn = { tools: [], finalText: 'Done here.' };

const snapshot = async (sid: string) => (await parts.call('GET', `/api/sessions/${sid}`)).body as unknown as SessionSnapshot & { activity: string };
const continueHere = (sid: string, args: string[] = [], token: string = TEST_TOKENS.operator) =>
  runCli(['continue', sid, '--hub', parts.hub.url, ...args], { env: { PATH: `${standIn}:${process.env.PATH ?? ''}`, SESSION_HUB_TOKEN: token } });

async function runnerSession(prompt: string): Promise<string> {
  const started = await parts.call('POST', `/api/machines/${parts.machine.machineId}/sessions`, { flavor: 'claude', path: home.dir, prompt });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  return started.body.sid as string;
}

beforeAll(async () => {
  model = await startAnthropicServer(script);
  home = claudeHome(model.url);
  standIn = join(home.root, 'stand-in');
  record = join(home.root, 'started.txt');
  mkdirSync(standIn);
  // the agent's CLI as the terminal would start it: where, and with what
  writeFileSync(join(standIn, 'claude'), `#!/bin/sh\necho "$PWD|$*" >> ${JSON.stringify(record)}\n`);
  chmodSync(join(standIn, 'claude'), 0o755);
  parts = await startHubAndRunner({ roots: [home.root], env: { ...home.env, XDG_CONFIG_HOME: home.root } });
}, 60_000);

afterAll(async () => {
  await parts?.stop();
  await model?.close();
  home?.remove();
});

describe('session-hub continue <sid>', () => {
  it('takes a runner-driven session back: the runner\'s run ends success, the agent\'s CLI starts here resuming it', async () => {
    const sid = await runnerSession('work on it from the phone');
    await waitFor(async () => (await snapshot(sid)).activity === 'idle', 60_000, `the turn ends; runner:\n${parts.runner.output()}`);
    const agentId = ((await snapshot(sid)).metadata.value as { claudeSessionId: string }).claudeSessionId;
    const ran = await continueHere(sid);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain('The machine runner ended its agent');
    expect(readFileSync(record, 'utf8').trim().split('\n').at(-1)).toBe(`${home.dir}|--resume=${agentId}`);
    const after = await snapshot(sid);
    expect(after.lifecycle.lastRun).toMatchObject({ status: 'success', reason: 'handed_over' });
    expect(parts.runner.output()).toContain('handed over');
  });

  it('--now ends the agent mid-turn at once: the run ends success, its open turn closed, and the terminal resumes it', async () => {
    let release: (() => void) | undefined;
    script.tools = [{ name: 'Bash', input: { command: 'echo held', description: 'held' } }];
    script.hold = () => new Promise<void>((resolve) => (release = resolve));
    const sid = await runnerSession('a long turn');
    await waitFor(async () => (await snapshot(sid)).activity === 'working' && release !== undefined, 60_000, 'the turn opens and its model call is held');
    const started = Date.now();
    const ran = await continueHere(sid, ['--now']);
    release?.();
    script.hold = undefined;
    script.tools = [];
    expect(Date.now() - started).toBeLessThan(20_000);
    expect((await snapshot(sid)).lifecycle.lastRun?.status).toBe('success');
    // the run ends as handed over (spec: success), so the gate lets the terminal resume it
    expect(ran.code, ran.stderr).toBe(0);
    expect((await snapshot(sid)).currentTurn).toBeNull();
    expect(readFileSync(record, 'utf8')).toContain(`${home.dir}|--resume=`);
  });

  it('refuses without an operator token, naming the token it needs; starts nothing', async () => {
    const before = existsSync(record) ? readFileSync(record, 'utf8') : '';
    const sid = (await parts.call('GET', '/api/sessions')).body.sessions as { sid: string }[];
    const noToken = await runCli(['continue', sid[0]!.sid, '--hub', parts.hub.url], { env: { PATH: `${standIn}:${process.env.PATH ?? ''}` } });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('SESSION_HUB_TOKEN');
    const agent = await continueHere(sid[0]!.sid, [], TEST_TOKENS.agent);
    expect(agent.code).toBe(1);
    expect(agent.stderr).toContain('an operator or admin token is needed');
    expect(readFileSync(record, 'utf8')).toBe(before);
  });
});
