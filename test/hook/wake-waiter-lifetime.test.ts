/**
 * The background waiter (`session-hub hook claude --wake`, docs/messages.md) lives as long as its
 * wait and its agent, no longer (issue 34, points 1 and 2), with real processes throughout:
 * - a hub restart under a live waiter: the waiter asks again while the hub is away and takes the
 *   message posted after the restart (before, it exited at the hub's shutdown answer and the reply
 *   stayed queued until someone typed in the terminal);
 * - its agent killed (the process that ran the hook, here a stand-in that spawned it): the waiter
 *   ends within its watch, its open wait closed, and a message posted after stays queued.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { MessagesResponse } from '../../shared/protocol/messages.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { runCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/clients.js';
import { alive } from '../helpers/process-alive.js';
import { spawnHub, stopHubsAfterEach, type HubProcess } from '../helpers/hub-process.js';
import { TEST_TOKENS } from '../helpers/tokens.js';

stopHubsAfterEach();
const CLI = resolve(import.meta.dirname, '../../dist/hub/cli.js');
let spoolDir: string;
afterEach(() => rmSync(spoolDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));

const stopPayload = (tag: string) => ({
  ...(JSON.parse(readFileSync(resolve(import.meta.dirname, 'fixtures', 'attention/claude-stop.json'), 'utf8')) as { payload: Record<string, unknown> }).payload,
  session_id: tag,
  stop_hook_active: false,
});

function hookEnv(hub: HubProcess, extra: Record<string, string> = {}): Record<string, string> {
  return { SESSION_HUB_URL: hub.url, SESSION_HUB_TOKEN: TEST_TOKENS.runner, SESSION_HUB_SPOOL_DIR: spoolDir, ...extra };
}

async function call<T>(hub: HubProcess, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${hub.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TEST_TOKENS.operator}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as T;
}

/** The session its first Stop opened (and whose taker key it registered). */
async function openSession(hub: HubProcess, tag: string): Promise<string> {
  const first = await runCli(['hook', 'claude'], { stdin: JSON.stringify(stopPayload(tag)), env: hookEnv(hub) });
  expect(first.code, first.stderr).toBe(0);
  const { sessions } = await call<{ sessions: SessionSnapshot[] }>(hub, 'GET', '/api/sessions');
  return sessions.find((s) => s.tag === tag)!.sid;
}

describe('the background waiter', () => {
  it('outlives a hub restart: it asks again and takes the message posted after', async () => {
    spoolDir = mkdtempSync(join(tmpdir(), 'session-hub-spool-'));
    let hub = await spawnHub();
    const sid = await openSession(hub, 'restart-1');
    const waiting = runCli(['hook', 'claude', '--wake'], { stdin: JSON.stringify(stopPayload('restart-1')), env: hookEnv(hub, { SESSION_HUB_WAKE_WAIT_MS: '60000' }) });
    await new Promise((r) => setTimeout(r, 1000));
    const { dataDir, port } = hub;
    await hub.stop();
    await new Promise((r) => setTimeout(r, 1500)); // away for a while: the waiter's requests are refused
    hub = await spawnHub({ dataDir, port });
    await call(hub, 'POST', `/api/sessions/${sid}/messages`, { text: 'Are you still there?' });
    const woken = await waiting;
    expect(woken).toEqual({ code: 2, stdout: '', stderr: 'Are you still there?\n' });
    const { messages } = await call<MessagesResponse>(hub, 'GET', `/api/sessions/${sid}/messages`);
    expect(messages[0]).toMatchObject({ state: 'delivered', via: 'wake:Stop' });
  }, 60_000);

  it('ends with its agent: killed, the waiter stops and a message posted after stays queued', async () => {
    spoolDir = mkdtempSync(join(tmpdir(), 'session-hub-spool-'));
    const hub = await spawnHub();
    const sid = await openSession(hub, 'killed-1');
    // the agent: a process that runs the waiter as Claude Code runs its hooks, and lives on
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...hookEnv(hub, { SESSION_HUB_WAKE_WAIT_MS: '60000', SESSION_HUB_WAKE_WATCH_MS: '200' }) };
    const script = `const { spawn } = require('node:child_process');
      const waiter = spawn(process.execPath, [${JSON.stringify(CLI)}, 'hook', 'claude', '--wake'], { stdio: ['pipe', 'ignore', 'ignore'] });
      waiter.stdin.end(${JSON.stringify(JSON.stringify(stopPayload('killed-1')))});
      console.log(waiter.pid);
      setInterval(() => {}, 1000);`;
    const agent = spawn(process.execPath, ['-e', script], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    const waiterPid = await new Promise<number>((resolvePid) => agent.stdout.once('data', (chunk: Buffer) => resolvePid(Number(chunk.toString().trim()))));
    await new Promise((r) => setTimeout(r, 1000));
    agent.kill('SIGKILL');
    await waitFor(() => !alive(waiterPid), 10_000, 'the waiter to end with its agent');
    await call(hub, 'POST', `/api/sessions/${sid}/messages`, { text: 'Anyone?' });
    await new Promise((r) => setTimeout(r, 1500)); // a waiter still registered would take it within its poll
    const { messages } = await call<MessagesResponse>(hub, 'GET', `/api/sessions/${sid}/messages`);
    expect(messages[0]).toMatchObject({ text: 'Anyone?', state: 'queued' });
  }, 60_000);
});
