/**
 * A hub restart while a runner-driven agent waits on an approval (issue 46.4), through a real hub
 * process (killed with kill -9, or stopped with SIGTERM, then started again on its port and
 * database), a real runner and the real Claude Code CLI: the approval the hub had reads
 * `interrupted` (the page: "the hub restarted before anyone decided: the runner asked again"),
 * never "nobody decided in time"; the session never reads "needs you" with nothing to decide; the
 * runner asks again once connected, and the Allow given after the restart runs the tool.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Approval } from '../../shared/protocol/attention.js';
import type { ListedMachine } from '../../shared/protocol/machines.js';
import type { Activity, SessionSnapshot, TurnSummary } from '../../shared/protocol/session.js';
import { startAnthropicServer } from '../agents/helpers/anthropic-server.js';
import type { ModelServer } from '../agents/helpers/model-server.js';
import { launchBrowser, signIn, waitForText } from '../browser/browser.js';
import { waitFor } from '../helpers/clients.js';
import { httpCall } from '../helpers/http-call.js';
import { spawnHub, type HubProcess } from '../helpers/hub-process.js';
import { TEST_TOKENS } from '../helpers/tokens.js';
import { claudeHome, type ClaudeHome } from './helpers/claude-home.js';
import { spawnRunner, type RunnerProcess } from './helpers/runner-process.js';

let model: ModelServer;
let home: ClaudeHome;
let dataDir: string;
let hub: HubProcess;
let runner: RunnerProcess;

const call = (method: string, path: string, body?: unknown) => httpCall(hub.url, method, path, body === undefined ? {} : { body });
const snapshot = async (sid: string) => (await call('GET', `/api/sessions/${sid}`)).body as unknown as SessionSnapshot;
const approvals = async (sid: string) => (await call('GET', `/api/sessions/${sid}/approvals`)).body.approvals as Approval[];
const tools = async (sid: string) => {
  const body = (await call('GET', `/api/sessions/${sid}/turns`)).body as unknown as TurnSummary[] | { turns: TurnSummary[] };
  return (Array.isArray(body) ? body : body.turns).flatMap((t) => (t as TurnSummary & { activities: Activity[] }).activities);
};
const online = async () => ((await call('GET', '/api/machines')).body.machines as ListedMachine[]).find((m) => m.online);

beforeAll(async () => {
  model = await startAnthropicServer({ tools: [{ name: 'Bash', input: { command: 'touch approved.txt', description: 'run a command' } }], finalText: 'All done.' });
  home = claudeHome(model.url);
  dataDir = mkdtempSync(join(tmpdir(), 'session-hub-restart-'));
  hub = await spawnHub({ dataDir });
  runner = spawnRunner({ hubUrl: hub.url, token: TEST_TOKENS.machine, roots: [home.root], env: { ...home.env, XDG_CONFIG_HOME: home.root } });
  await waitFor(async () => (await online()) !== undefined, 30_000, `the runner registers; output:\n${runner.output()}`);
}, 60_000);

afterAll(async () => {
  await runner?.stop();
  await hub?.stop();
  await model?.close();
  home?.remove();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('a runner-driven approval across a hub restart (real hub, runner and Claude Code)', () => {
  it.each(['kill -9', 'SIGTERM'] as const)('the hub %s and started again: the approval reads interrupted, the runner asks again, and the Allow after the restart runs the tool; the page says the hub restarted', async (how) => {
    const started = await call('POST', `/api/machines/${(await online())!.machineId}/sessions`, { flavor: 'claude', path: home.dir, prompt: `restart the hub (${how})` });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const sid = started.body.sid as string;
    let first: Approval | undefined;
    await waitFor(async () => (first = (await approvals(sid)).find((a) => a.status === 'pending')) !== undefined, 60_000, `a pending approval; runner:\n${runner.output()}`);

    if (how === 'kill -9') await hub.kill9();
    else await hub.stop();
    hub = await spawnHub({ dataDir, port: hub.port });

    let again: Approval | undefined;
    await waitFor(async () => {
      const seen = await snapshot(sid);
      const list = await approvals(sid);
      // "needs you · wants approval" only with something to decide
      if (seen.attention?.kind === 'permission') expect(list.filter((a) => a.status === 'pending').length, JSON.stringify(list)).toBeGreaterThan(0);
      again = list.find((a) => a.status === 'pending');
      return again !== undefined;
    }, 60_000, `the runner asks again; runner:\n${runner.output()}`);
    const old = (await approvals(sid)).find((a) => a.approvalId === first!.approvalId)!;
    expect(old).toMatchObject({ status: 'interrupted', message: 'the hub stopped or restarted before anyone decided' });
    expect(again!.approvalId).not.toBe(first!.approvalId);

    const browser = await launchBrowser();
    try {
      const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
      await signIn(page, hub.url, TEST_TOKENS.operator);
      await page.goto(`${hub.url}/#/s/${encodeURIComponent(sid)}`);
      await waitForText(page, 'main', 'the hub restarted before anyone decided: the runner asked again', 10_000);
      expect((await page.locator('main').textContent()) ?? '').not.toContain('nobody decided in time');
    } finally {
      await browser.close();
    }

    expect((await call('POST', `/api/sessions/${sid}/approvals/${again!.approvalId}`, { decision: 'allow' })).status).toBe(200);
    await waitFor(async () => (await tools(sid)).some((t) => t.tool === 'Bash' && t.status === 'done'), 60_000, `the tool ran; runner:\n${runner.output()}`);
    expect(existsSync(join(home.dir, 'approved.txt')), 'the tool allowed after the restart ran').toBe(true);
    rmSync(join(home.dir, 'approved.txt'));
    expect((await approvals(sid)).map((a) => a.status).sort()).toEqual(['allowed', 'interrupted']);
    await call('POST', `/api/sessions/${sid}/stop`);
  }, 150_000);
});
