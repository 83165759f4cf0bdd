/**
 * Issue 22.2 on a phone (390 px), in Chromium, with real hook processes fed Claude Code's real
 * PermissionRequest payload: "needs you" puts the tool approval first (then the question, then the
 * finished turn) whatever their age; the approval shows its whole input (no "…"), its folder broken
 * only between path parts, the time left; one nobody decides says it went back to the terminal;
 * Allow leaves a card saying what was decided and by whom (the operator token's label) until
 * dismissed, and the waiting hook process prints the allow decision.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mintToken } from '../../hub/services/tokens.js';
import { RunnerClient } from '../../shared/client/runner-client.js';
import { permissionRequestStdout } from '../../shared/permission-output.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { stopDrainers } from '../hook/run-cli.js';
import { attentionPayload, hubApi, startHook } from '../people/hook-processes.js';
import { launchBrowser, screenshot, signIn, textOf } from './browser.js';

let hub: TestHub;
let browser: Browser;
let page: Page;
let tokens: { runner: string; operator: string };
const spoolDirs: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  // stored tokens (no SESSION_HUB_TOKENS), so the operator's token carries a label
  hub = await startTestHub({ config: { tokens: '' } });
  const now = Date.now();
  const runner = await mintToken(hub.deps.store, { role: 'runner', namespace: 'default', source: 'cli', now });
  const operator = await mintToken(hub.deps.store, { role: 'operator', namespace: 'default', source: 'cli', now, label: "alice's laptop" });
  tokens = { runner: runner.token, operator: operator.token };
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await hub?.close();
});
afterEach(async () => {
  await page?.context().close();
  for (const dir of spoolDirs.splice(0)) {
    stopDrainers(dir);
    rmSync(dir, { recursive: true, force: true });
  }
  expect(pageErrors.splice(0)).toEqual([]);
});

async function phonePage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  page = await context.newPage();
  page.on('pageerror', (err) => pageErrors.push(err.message));
  return page;
}

function hookEnv(waitMs = 30_000): Record<string, string> {
  const spoolDir = mkdtempSync(join(tmpdir(), 'session-hub-spool-'));
  spoolDirs.push(spoolDir);
  return { SESSION_HUB_URL: hub.url, SESSION_HUB_TOKEN: tokens.runner, SESSION_HUB_SPOOL_DIR: spoolDir, SESSION_HUB_HOOK_WAIT_MS: String(waitMs) };
}

const LONG_COMMAND =
  'find /home/developer/projects/session-hub-phone-check/packages/server-side-rendering -name "*.snap" -mtime +30 -print0 | xargs -0 rm -f && ' +
  'npm run test -- --runInBand --coverage --coverageDirectory=/home/developer/projects/session-hub-phone-check/coverage/server-side-rendering-module && ' +
  'git status --porcelain';
const LONG_CWD = '/home/developer/projects/session-hub-phone-check/packages/server-side-rendering-module';

/** A real hook process asking Claude Code's PermissionRequest, and its pending card on a phone page signed in as the operator. */
async function pendingCard(tag: string, env: Record<string, string>) {
  const waiting = startHook(attentionPayload('claude-permission-request', tag), env);
  const api = hubApi(() => ({ url: hub.url, token: tokens.operator }));
  const { sid } = await api.approvalsWhen(tag, (list) => list.some((a) => a.status === 'pending'), 'a pending approval');
  await phonePage();
  await signIn(page, hub.url, tokens.operator);
  const card = `#needs-you li[data-sid="${sid}"] [data-status="pending"]`;
  await page.waitForSelector(card);
  return { sid, card, waiting };
}

describe('approvals a person can act on, at 390 px', () => {
  it('Deny with a reason typed on the page: the waiting hook prints the deny carrying it; with nothing set on the agent’s side, minutes are left', async () => {
    const { SESSION_HUB_HOOK_WAIT_MS: _bound, ...unbounded } = hookEnv();
    const { sid, card, waiting } = await pendingCard(`cards-deny-${Date.now()}`, unbounded);
    // the hub's default wait: minutes, counted down on the card
    expect(await textOf(page, `${card} .approval-left`)).toMatch(/^(5 min|4 min \d+ s) left, then the agent asks in its terminal$/);
    const reason = 'not on the shared machine: delete the cache instead';
    await page.locator(`${card} input.deny-reason`).fill(reason);
    // the field fits the phone: it takes its own line, the page never scrolls sideways
    const box = (await page.locator(`${card} input.deny-reason`).boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, 'approval-deny-reason-390');
    await page.locator(`${card} button[data-decision="deny"]`).click();

    expect(await waiting.done).toMatchObject({ code: 0, stdout: permissionRequestStdout({ decision: 'deny', message: reason }) });
    const decided = `#needs-you li[data-sid="${sid}"] [data-status="denied"] .approval-outcome`;
    await page.waitForSelector(decided);
    expect(await textOf(page, decided)).toContain(reason);
  });

  it('on the session\'s own page, a pending approval is right under the title, above talking to the agent; decided, it goes back below', async () => {
    const { sid, waiting } = await pendingCard(`cards-order-${Date.now()}`, hookEnv());
    await page.goto(`${hub.url}/#/s/${encodeURIComponent(sid)}`);
    await page.waitForSelector('#session-approvals [data-status="pending"]');
    const top = async (selector: string) => (await page.locator(selector).boundingBox())!.y;
    expect(await top('#session-approvals')).toBeLessThan(await top('#session-messages'));
    // the decision within a thumb's reach of the title on a phone: in the first screen
    expect(await top('#session-approvals [data-status="pending"] button[data-decision="allow"]')).toBeLessThan(844);
    await page.locator('#session-approvals [data-status="pending"] button[data-decision="allow"]').click();
    await page.waitForSelector('#session-approvals [data-status="allowed"]');
    expect(await top('#session-approvals')).toBeGreaterThan(await top('#session-messages'));
    expect((await waiting.done).code).toBe(0);
  });

  it('"Always allow" the rule Claude Code suggested: the waiting hook prints it back as updatedPermissions; the card says it is kept', async () => {
    const { sid, card, waiting } = await pendingCard(`cards-always-${Date.now()}`, hookEnv());
    const always = page.locator(`${card} button[data-decision="always"]`);
    expect(await always.textContent()).toBe('Always allow Bash(rm -rf node_modules) here');
    const box = (await always.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, 'approval-always-allow-390');
    await always.click();

    const run = await waiting.done;
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).hookSpecificOutput.decision).toEqual({
      behavior: 'allow',
      updatedPermissions: [{ type: 'addRules', behavior: 'allow', destination: 'localSettings', rules: [{ toolName: 'Bash', ruleContent: 'rm -rf node_modules' }] }],
    });
    const decided = `#needs-you li[data-sid="${sid}"] [data-status="allowed"] .approval-outcome`;
    await page.waitForSelector(decided);
    expect(await textOf(page, decided)).toContain('from now on: Bash(rm -rf node_modules)');
  });

  it('first in "needs you", whole input, path unbroken, time left; Allow leaves a card naming the decider', async () => {
    const sdk = await RunnerClient.connect({ url: hub.url, token: tokens.runner });
    try {
      // older: a finished turn and a question
      const { session: done } = await sdk.startSession({ tag: `cards-done-${Date.now()}`, flavor: 'claude', source: 'startup', metadata: { path: '/work/done' } });
      await sdk.setAttention(done.sid, 'done', { message: 'All tests pass.' });
      const { session: asks } = await sdk.startSession({ tag: `cards-asks-${Date.now()}`, flavor: 'claude', source: 'startup', metadata: { path: '/work/asks' } });
      await sdk.setAttention(asks.sid, 'question', { message: 'Which branch?' });
      await new Promise((r) => setTimeout(r, 50));
      // newest: a tool approval from a real hook process
      const tag = `cards-perm-${Date.now()}`;
      const asked = { ...attentionPayload('claude-permission-request', tag), cwd: LONG_CWD, tool_input: { command: LONG_COMMAND, description: 'Prune old snapshots and run the tests' } };
      const waiting = startHook(asked, hookEnv());
      const api = hubApi(() => ({ url: hub.url, token: tokens.operator }));
      const { sid } = await api.approvalsWhen(tag, (list) => list.some((a) => a.status === 'pending'), 'a pending approval');

      await phonePage();
      await signIn(page, hub.url, tokens.operator);
      await page.waitForSelector(`#needs-you li[data-sid="${sid}"] [data-approval-id][data-status="pending"]`);
      const order = await page.$$eval('#needs-you li.needs-you-row', (rows) => rows.map((r) => r.getAttribute('data-sid')));
      expect(order.slice(0, 2)).toEqual([sid, asks.sid]);
      // the finished one waits on nobody: ready, apart
      expect(order).not.toContain(done.sid);
      await page.waitForSelector(`#ready li[data-sid="${done.sid}"]`);

      const card = `#needs-you li[data-sid="${sid}"] [data-status="pending"]`;
      const input = await textOf(page, `${card} .approval-input`);
      expect(input).toContain(LONG_COMMAND);
      expect(input).toContain('description: Prune old snapshots and run the tests');
      expect(input).not.toContain('…');
      // it wraps at spaces only: no word of it (a path, a flag) is broken across lines
      const brokenWords = await page.$eval(`${card} .approval-input`, (el) =>
        Array.from(el.querySelectorAll('.word')).filter((word) => {
          const range = document.createRange();
          range.selectNodeContents(word);
          return new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size !== 1;
        }).map((word) => word.textContent),
      );
      expect(brokenWords).toEqual([]);
      expect(await textOf(page, `${card} .approval-left`)).toMatch(/^\d+ s left, then the agent asks in its terminal$/);
      // the page never scrolls sideways; the folder wraps only between its parts
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      const path = await page.$eval(`${card} .path-text`, (el) => ({
        text: el.textContent,
        lines: new Set(Array.from(el.querySelectorAll('.path-part')).map((p) => Math.round(p.getBoundingClientRect().top))).size,
        partsOnOneLine: Array.from(el.querySelectorAll('.path-part')).every((p) => {
          const range = document.createRange();
          range.selectNodeContents(p);
          return new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size === 1;
        }),
      }));
      expect(path.text).toBe(LONG_CWD);
      expect(path.lines, 'the long folder wraps at 390 px').toBeGreaterThan(1);
      expect(path.partsOnOneLine).toBe(true);
      await screenshot(page, 'approval-card-390');

      await page.locator(`${card} button[data-decision="allow"]`).click();
      const decided = `#needs-you li[data-sid="${sid}"] [data-status="allowed"] .approval-outcome`;
      await page.waitForSelector(decided);
      expect(await textOf(page, decided)).toMatch(/^allowed by alice's laptop/);
      expect(await waiting.done).toMatchObject({ code: 0, stdout: permissionRequestStdout({ decision: 'allow' }) });
      // the session needs nobody now, and the card stays until dismissed
      await page.waitForSelector(`#needs-you li.needs-you-decided[data-sid="${sid}"] [data-status="allowed"]`);
      await screenshot(page, 'approval-decided-390');
      await page.locator(`#needs-you li.needs-you-decided[data-sid="${sid}"] button.dismiss`).click();
      await page.waitForSelector(`#needs-you li[data-sid="${sid}"]`, { state: 'detached' });
    } finally {
      sdk.close();
    }
  });

  it('an approval nobody decides says it went back to the terminal', async () => {
    const tag = `cards-expire-${Date.now()}`;
    // 12 s: long enough for the page to show it pending on a loaded machine (4 s raced sign-in)
    const waiting = startHook(attentionPayload('claude-permission-request', tag), hookEnv(12_000));
    const api = hubApi(() => ({ url: hub.url, token: tokens.operator }));
    const { sid } = await api.approvalsWhen(tag, (list) => list.some((a) => a.status === 'pending'), 'a pending approval');
    await phonePage();
    await signIn(page, hub.url, tokens.operator);
    await page.waitForSelector(`#needs-you li[data-sid="${sid}"] [data-status="pending"] .approval-left`);
    expect(await waiting.done).toMatchObject({ code: 0, stdout: '' });
    const ended = `#needs-you li[data-sid="${sid}"] [data-status="expired"] .approval-outcome`;
    await page.waitForSelector(ended);
    expect(await textOf(page, ended)).toContain('went back to the terminal');
    expect(await page.$$(`#needs-you li[data-sid="${sid}"] button[data-decision]`)).toHaveLength(0);
  }, 45_000);
});
