/**
 * An agent's own errors reach the page in its own words (issue 46.8), through the real hub and
 * runner processes and the real Codex CLI: a model server out of reach (Codex retries without end:
 * the session reads "hit an error and keeps retrying" with Codex's words while its turn stays open,
 * not a silent "working"), and a key the model refuses (the turn fails; the session reads "stopped
 * on an error" with the 401 in Codex's words). The page is read in Chromium at 390 px.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { SessionSnapshot, TurnSummary } from '../../shared/protocol/session.js';
import { startRefusingServer, unreachableUrl, type RefusingServer } from '../agents/helpers/refusing-model-server.js';
import { launchBrowser, signIn, waitForText } from '../browser/browser.js';
import { waitFor } from '../helpers/clients.js';
import { httpCall } from '../helpers/http-call.js';
import type { HubProcess } from '../helpers/hub-process.js';
import { TEST_TOKENS } from '../helpers/tokens.js';
import { codexHome, type CodexHome } from './helpers/codex-home.js';
import { startHubAndRunner, type HubAndRunner } from './helpers/hub-and-runner.js';
import type { RunnerProcess } from './helpers/runner-process.js';

let parts: HubAndRunner;
let hub: HubProcess;
let runner: RunnerProcess;
let home: CodexHome;
let refusing: RefusingServer | undefined;
let browser: Browser | undefined;
let machineId: string;

const call = (method: string, path: string, body?: unknown) => httpCall(hub.url, method, path, body === undefined ? {} : { body });
const snapshot = async (sid: string) => (await call('GET', `/api/sessions/${sid}`)).body as unknown as SessionSnapshot & { activity: string };

async function startCodex(prompt: string): Promise<string> {
  const started = await call('POST', `/api/machines/${machineId}/sessions`, { flavor: 'codex', path: home.dir, prompt });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  return started.body.sid as string;
}

async function stop(sid: string): Promise<void> {
  expect((await call('POST', `/api/sessions/${sid}/stop`)).status).toBe(202);
  await waitFor(async () => (await snapshot(sid)).lifecycle.state === 'ended', 30_000, 'the run ended');
}

beforeAll(async () => {
  home = codexHome(await unreachableUrl());
  parts = await startHubAndRunner({ roots: [home.root], env: home.env });
  ({ hub, runner } = parts);
  machineId = parts.machine.machineId;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await parts?.stop();
  await refusing?.close();
  home?.remove();
});

describe("an agent's own errors on the page (real runner, real Codex CLI)", () => {
  it('a model out of reach: the session says Codex keeps retrying, in its words, while the turn stays open', async () => {
    const sid = await startCodex('hello');
    await waitFor(async () => (await snapshot(sid)).attention?.kind === 'retrying', 60_000, `attention retrying; runner:\n${runner.output()}`);
    const seen = await snapshot(sid);
    expect(seen.attention!.message).toMatch(/Reconnecting/);
    expect(seen.attention!.message).toMatch(/Connection failed/);
    expect(seen.activity).toBe('working');
    expect(seen.currentTurn?.status).toBe('open');

    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await signIn(page, hub.url, TEST_TOKENS.operator);
    await page.goto(`${hub.url}/#/s/${encodeURIComponent(sid)}`);
    await waitForText(page, '.attention-line', 'hit an error and keeps retrying', 10_000);
    await waitForText(page, '.attention-line', 'Reconnecting', 10_000);
    await context.close();

    await stop(sid);
    expect((await snapshot(sid)).attention).toBeNull();
  }, 120_000);

  it("a key the model refuses: the turn fails and the session says so with Codex's words", async () => {
    refusing = await startRefusingServer(401, 'Incorrect API key provided');
    home.pointAt(refusing.url);
    const sid = await startCodex('hello again');
    await waitFor(async () => (await snapshot(sid)).attention?.kind === 'failed', 60_000, `attention failed; runner:\n${runner.output()}`);
    const seen = await snapshot(sid);
    expect(seen.attention!.message).toMatch(/401 Unauthorized: Incorrect API key provided/);
    const turns = (await call('GET', `/api/sessions/${sid}/turns`)).body as unknown as TurnSummary[] | { turns: TurnSummary[] };
    const [turn] = Array.isArray(turns) ? turns : turns.turns;
    expect(turn).toMatchObject({ prompt: 'hello again', status: 'error', response: expect.stringContaining('401') });
    expect(refusing.requests()).toBeGreaterThan(0);
    await stop(sid);
  }, 120_000);
});
