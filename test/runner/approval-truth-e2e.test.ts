/**
 * What a runner-driven session's approvals and tools say is what happened (issue 46, points 1, 2
 * and 7), through a real hub process, a real runner and the real Claude Code CLI: an Interrupt or
 * a Stop while an approval waits closes it (`cancelled`, saying who and why; the session no longer
 * needs anyone), a late decision is refused with that reason, and the tool reads "not run", never
 * done; a denial reads denied with the person's reason; a runner stopped mid-approval closes it as
 * the runner stopping (not "answered in the agent's terminal"), and the page says so in words.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Approval } from '../../shared/protocol/attention.js';
import type { Activity, SessionSnapshot, TurnSummary } from '../../shared/protocol/session.js';
import { startAnthropicServer } from '../agents/helpers/anthropic-server.js';
import type { ModelServer } from '../agents/helpers/model-server.js';
import { launchBrowser, SCREENSHOT_DIR, signIn, waitForText } from '../browser/browser.js';
import { waitFor } from '../helpers/clients.js';
import { httpCall } from '../helpers/http-call.js';
import type { HubProcess } from '../helpers/hub-process.js';
import { TEST_TOKENS } from '../helpers/tokens.js';
import { claudeHome, type ClaudeHome } from './helpers/claude-home.js';
import { startHubAndRunner, type HubAndRunner } from './helpers/hub-and-runner.js';
import type { RunnerProcess } from './helpers/runner-process.js';

let model: ModelServer;
let home: ClaudeHome;
let parts: HubAndRunner;
let hub: HubProcess;
let runner: RunnerProcess;
let browser: Browser | undefined;
let machineId: string;

const call = (method: string, path: string, body?: unknown) => httpCall(hub.url, method, path, body === undefined ? {} : { body });
const snapshot = async (sid: string) => (await call('GET', `/api/sessions/${sid}`)).body as unknown as SessionSnapshot & { activity: string };
const approvals = async (sid: string) => (await call('GET', `/api/sessions/${sid}/approvals`)).body.approvals as Approval[];
const tools = async (sid: string) => {
  const body = (await call('GET', `/api/sessions/${sid}/turns`)).body as unknown as TurnSummary[] | { turns: TurnSummary[] };
  return (Array.isArray(body) ? body : body.turns).flatMap((t) => (t as TurnSummary & { activities: Activity[] }).activities);
};

/** The page's line of the session's Bash call: its status, its own time, and its wait for a person. */
async function toolLine(page: Page): Promise<{ status: string; took: string; waited: string }> {
  const line = page.locator('.tool[data-tool="Bash"]').first();
  const text = async (selector: string) => ((await line.locator(selector).first().textContent()) ?? '').trim();
  return { status: await text('.tool-status'), took: await text('.tool-took'), waited: await text('.tool-waited') };
}

/** A session started from HTTP whose Bash call now waits for a person. */
async function waitingOnApproval(prompt: string): Promise<{ sid: string; approvalId: string }> {
  const started = await call('POST', `/api/machines/${machineId}/sessions`, { flavor: 'claude', path: home.dir, prompt });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const sid = started.body.sid as string;
  let approvalId: string | undefined;
  await waitFor(async () => (approvalId = (await approvals(sid)).find((a) => a.status === 'pending')?.approvalId) !== undefined, 60_000, `a pending approval; runner:\n${runner.output()}`);
  expect((await snapshot(sid)).activity).toBe('waiting');
  return { sid, approvalId: approvalId! };
}

beforeAll(async () => {
  model = await startAnthropicServer({ tools: [{ name: 'Bash', input: { command: 'touch approved.txt', description: 'run a command' } }], finalText: 'All done.' });
  home = claudeHome(model.url);
  parts = await startHubAndRunner({ roots: [home.root], env: { ...home.env, XDG_CONFIG_HOME: home.root } });
  ({ hub, runner } = parts);
  machineId = parts.machine.machineId;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await parts?.stop();
  await model?.close();
  home?.remove();
});

describe('approvals and tools of a runner-driven session say what happened (real runner, real Claude Code)', () => {
  it('Interrupt closes the waiting approval: cancelled by who asked, nobody needed, a late Allow refused, the tool not run', async () => {
    const { sid, approvalId } = await waitingOnApproval('interrupt me');
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await signIn(page, hub.url, TEST_TOKENS.operator);
    await page.goto(`${hub.url}/#/s/${encodeURIComponent(sid)}`);
    await waitForText(page, 'main', 'Allow', 10_000);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'runner-approval-waiting-phone.png') });

    expect((await call('POST', `/api/sessions/${sid}/interrupt`)).status).toBe(202);
    await waitFor(async () => (await approvals(sid)).find((a) => a.approvalId === approvalId)?.status === 'cancelled', 15_000, 'the approval closed');
    const closed = (await approvals(sid)).find((a) => a.approvalId === approvalId)!;
    expect(closed).toMatchObject({ message: 'the turn was interrupted before anyone decided', decidedBy: expect.any(String) });
    const seen = await snapshot(sid);
    expect(seen.activity).not.toBe('waiting');
    expect(seen.attention?.kind ?? null).not.toBe('permission');

    const late = await call('POST', `/api/sessions/${sid}/approvals/${approvalId}`, { decision: 'allow' });
    expect(late.status).toBe(409);
    expect(JSON.stringify(late.body)).toContain('was cancelled: the turn was interrupted before anyone decided; the tool did not run');
    // the runner did not ask again: nothing pending, and the tool never reads done
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await approvals(sid)).filter((a) => a.status === 'pending')).toEqual([]);
    for (const tool of await tools(sid)) expect(tool.status).not.toBe('done');
    await waitFor(async () => (await tools(sid)).some((t) => t.tool === 'Bash' && t.status === 'cancelled'), 15_000, `the Bash call recorded as not run; tools: ${JSON.stringify(await tools(sid))}`);
    expect(existsSync(join(home.dir, 'approved.txt'))).toBe(false);

    // the page open through it all shows the approval closed, without a reload
    await waitForText(page, 'main', 'closed: the tool did not run', 10_000);
    // the tool's own line: not run, and why, with no time of its own (it never ran)
    await waitForText(page, '.tool[data-tool="Bash"] .tool-waited', 'closed by', 10_000);
    expect(await toolLine(page)).toMatchObject({ status: 'not run', took: '' });
    expect((await toolLine(page)).waited).toContain('the turn was interrupted before anyone decided');
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'runner-approval-interrupted-phone.png') });
    expect(await page.locator('.approval [data-decision="allow"], .approval button:has-text("Allow")').count()).toBe(0);
    await context.close();
    await call('POST', `/api/sessions/${sid}/stop`);
  }, 120_000);

  it("Deny with a reason: the tool reads denied with the person's reason, never done", async () => {
    const { sid, approvalId } = await waitingOnApproval('deny me');
    expect((await call('POST', `/api/sessions/${sid}/approvals/${approvalId}`, { decision: 'deny', message: 'not on this branch' })).status).toBe(200);
    await waitFor(async () => (await tools(sid)).some((t) => t.tool === 'Bash' && t.status !== 'running'), 60_000, `the tool reported; runner:\n${runner.output()}`);
    const [bash] = (await tools(sid)).filter((t) => t.tool === 'Bash');
    expect(bash!.status).toBe('denied');
    expect(JSON.stringify(bash!.output)).toContain('not on this branch');
    expect(existsSync(join(home.dir, 'approved.txt'))).toBe(false);

    // the page's tool line says it too: denied, by whom, with the person's reason, no time of its own
    browser ??= await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await signIn(page, hub.url, TEST_TOKENS.operator);
    await page.goto(`${hub.url}/#/s/${encodeURIComponent(sid)}`);
    await waitForText(page, '.tool[data-tool="Bash"] .tool-waited', 'not on this branch', 10_000);
    expect(await toolLine(page)).toMatchObject({ status: 'denied', took: '' });
    expect((await toolLine(page)).waited).toMatch(/: denied by .+: not on this branch/);
    await context.close();
    await call('POST', `/api/sessions/${sid}/stop`);
  }, 120_000);

  it('Stop closes the waiting approval: cancelled by who asked, a late Allow refused, the tool not run', async () => {
    const { sid, approvalId } = await waitingOnApproval('stop me');
    expect((await call('POST', `/api/sessions/${sid}/stop`)).status).toBe(202);
    await waitFor(async () => (await approvals(sid)).find((a) => a.approvalId === approvalId)?.status === 'cancelled', 30_000, 'the approval closed');
    const closed = (await approvals(sid)).find((a) => a.approvalId === approvalId)!;
    expect(closed).toMatchObject({ message: 'a Stop was asked before anyone decided', decidedBy: expect.any(String) });
    const late = await call('POST', `/api/sessions/${sid}/approvals/${approvalId}`, { decision: 'allow' });
    expect(late.status).toBe(409);
    expect(JSON.stringify(late.body)).toContain('was cancelled: a Stop was asked before anyone decided; the tool did not run');
    await waitFor(async () => (await snapshot(sid)).lifecycle.state === 'ended', 30_000, 'the session ended');
    const seen = await snapshot(sid);
    expect(seen.activity).not.toBe('waiting');
    for (const tool of await tools(sid)) expect(tool.status).not.toBe('done');
    expect(existsSync(join(home.dir, 'approved.txt'))).toBe(false);
  }, 120_000);

  it('the runner stopped mid-approval: closed as the runner stopping, and the page says it in words', async () => {
    const { sid, approvalId } = await waitingOnApproval('stop the runner');
    await runner.stop();
    await waitFor(async () => (await snapshot(sid)).lifecycle.state === 'ended', 30_000, 'the session ended');
    const closed = (await approvals(sid)).find((a) => a.approvalId === approvalId)!;
    expect(closed).toMatchObject({ status: 'cancelled', message: 'the machine runner stopped before anyone decided', decidedBy: null });

    browser ??= await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await signIn(page, hub.url, TEST_TOKENS.operator);
    await page.goto(`${hub.url}/#/s/${encodeURIComponent(sid)}`);
    await waitForText(page, 'main', 'the machine runner stopped, and its agents with it', 10_000);
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).not.toContain('runner_stopped');
    expect(text).not.toContain('answered in the agent');
    await context.close();
  }, 120_000);
});
