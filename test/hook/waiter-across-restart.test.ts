/**
 * The background waiter (Claude Code's asyncRewake Stop hook) outlives a hub restart (issue 34):
 * a real `session-hub hook claude --wake` process waits on a real hub process; the hub is stopped
 * (SIGTERM, or kill -9) and started again on the same port and store; the waiter asks again within
 * its wait, the reach says `wake` again only once it waits on the new process, and a message posted
 * then wakes it (exit 2, the text on stderr; delivered `wake:Stop`).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { MessagesResponse } from '../../shared/protocol/messages.js';
import { runCli } from '../helpers/cli.js';
import { spawnHub, stopHubsAfterEach, type HubProcess } from '../helpers/hub-process.js';
import { postMessage } from '../helpers/messages.js';
import { hubReader, stopDrainers } from './run-cli.js';

stopHubsAfterEach();
const spoolDirs: string[] = [];
afterEach(() => {
  for (const dir of spoolDirs.splice(0)) {
    stopDrainers(dir);
    rmSync(dir, { recursive: true, force: true });
  }
});

const stopPayload = (tag: string) => ({
  ...((JSON.parse(readFileSync(resolve(import.meta.dirname, 'fixtures/attention/claude-stop.json'), 'utf8')) as { payload: Record<string, unknown> }).payload),
  session_id: tag,
  stop_hook_active: false,
});

async function until(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not in ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the waiter across a hub restart', () => {
  it.each([
    ['stopped (SIGTERM)', (hub: HubProcess) => hub.stop()],
    ['killed (kill -9)', (hub: HubProcess) => hub.kill9()],
  ])('the hub %s and started again: the waiter waits on the new one and a message wakes the agent', async (_how, down) => {
    const tag = `restart-${Date.now()}`;
    const first = await spawnHub();
    const spoolDir = mkdtempSync(join(tmpdir(), 'session-hub-spool-'));
    spoolDirs.push(spoolDir);
    const env = { SESSION_HUB_URL: first.url, SESSION_HUB_TOKEN: first.tokens.runner, SESSION_HUB_SPOOL_DIR: spoolDir };
    expect((await runCli(['hook', 'claude'], { stdin: JSON.stringify(stopPayload(tag)), env })).code).toBe(0);

    let hub = first;
    const reader = hubReader(() => hub);
    const session = await reader.sessionByTag(tag);
    const reach = async () => (await reader.get<MessagesResponse>(`/api/sessions/${session.sid}/messages`)).reach;

    const waiting = runCli(['hook', 'claude', '--wake'], { stdin: JSON.stringify(stopPayload(tag)), env: { ...env, SESSION_HUB_WAKE_WAIT_MS: '60000' } });
    await until('the waiter waits on the first hub', async () => (await reach()) === 'wake');

    await down(first);
    hub = await spawnHub({ dataDir: first.dataDir, port: first.port });
    await until('the waiter waits on the restarted hub', async () => (await reach()) === 'wake');

    const message = await postMessage(hub, session.sid, 'Still there after the restart?');
    expect(await waiting).toEqual({ code: 2, stdout: '', stderr: 'Still there after the restart?\n' });
    const { messages } = await reader.get<MessagesResponse>(`/api/sessions/${session.sid}/messages`);
    expect(messages[0]).toMatchObject({ id: message.id, state: 'delivered', via: 'wake:Stop' });
  }, 60_000);
});
