/**
 * The page's attention loop on a real hub: "needs you" (plain words, waited time, the count in the
 * title), tool approvals decided from the page (operator) or only watched (dashboard), browser
 * notifications once per attention change, and usage (cost per session, per model, the usage view).
 * Attention is set through the SDK's RunnerClient; approvals are opened through the approvals
 * service on the test hub (as the hook path does); decisions go over the page's real HTTP calls.
 */
import { createHash } from 'node:crypto';
import type { Page, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApproval } from '../../hub/people/approvals.js';
import type { Actor } from '../../hub/services/deps.js';
import { RunnerClient } from '../../shared/client/runner-client.js';
import type { RunnerSocket } from '../helpers/clients.js';
import type { TestHub } from '../helpers/hub.js';
import { useDashboardPages, screenshot, signIn, textOf, waitForText } from './browser.js';

let hub: TestHub;
let runner: RunnerSocket;
let page: Page;
let context: BrowserContext;
let sdk: RunnerClient;

useDashboardPages({
  suite: (started) => ({ hub, runner } = started),
  test: (opened) => ({ page, context } = opened),
});
beforeAll(async () => {
  // the suite hook above starts the hub first (beforeAll hooks run in order)
  sdk = await RunnerClient.connect({ url: hub.url, token: hub.tokens.runner });
});
afterAll(() => sdk?.close());

const hookActor: Actor = { namespace: 'default', role: 'runner', by: 'runner' };
const tokenId = (token: string) => createHash('sha256').update(token).digest('hex').slice(0, 12);

async function startSession(tag: string, metadata: Record<string, unknown> = { path: '/work/app', claudeSessionId: 'abc' }): Promise<string> {
  const ack = await runner.emitWithAck('session-start', { tag, flavor: 'claude', source: 'startup', metadata: metadata as never });
  if (!ack.ok) throw new Error(`session-start failed: ${ack.error.message}`);
  return ack.session.sid;
}

async function prompt(sid: string, text: string) {
  expect((await runner.emitWithAck('prompt-submit', { sid, prompt: text })).ok).toBe(true);
}

/** Clears every attention left by an earlier test, so each test counts its own. */
async function clearAll() {
  const res = await fetch(`${hub.url}/api/sessions?limit=500`, { headers: { authorization: `Bearer ${hub.tokens.dashboard}` } });
  const body = (await res.json()) as { sessions: { sid: string; attention: unknown }[] };
  for (const s of body.sessions) if (s.attention) await sdk.setAttention(s.sid, null);
}

describe('needs you', () => {
  it('lists what waits on a person first in plain words, counts only those in the title, shows finished ones apart as ready, and opens one on a click', async () => {
    await clearAll();
    const asks = await startSession(`asks-${Date.now()}`);
    await prompt(asks, 'Pick a branch');
    const failed = await startSession(`fails-${Date.now()}`);
    await prompt(failed, 'Run the migration');
    const finished = await startSession(`done-${Date.now()}`);
    await prompt(finished, 'Bump the version');
    await sdk.setAttention(asks, 'question', { message: 'Which branch should I use?' });
    await sdk.setAttention(failed, 'failed');
    await sdk.setAttention(finished, 'done', { message: 'Version bumped to 1.4.0.' });

    await signIn(page, hub.url, hub.tokens.dashboard);
    await page.waitForSelector(`#needs-you li[data-sid="${asks}"]`);
    await waitForText(page, `#needs-you li[data-sid="${asks}"] .attention-badge`, 'asks you something');
    expect(await textOf(page, `#needs-you li[data-sid="${asks}"] .attention-message`)).toBe('Which branch should I use?');
    expect(await textOf(page, `#needs-you li[data-sid="${asks}"] .waited`)).toMatch(/^waiting (since just now|\d+ s)/);
    // a turn that is over waits on nobody (issue 34): apart, as ready, and not counted
    await waitForText(page, `#ready li[data-sid="${finished}"]`, 'finished');
    await waitForText(page, `#ready li[data-sid="${failed}"]`, 'stopped on an error');
    expect(await textOf(page, `#ready li[data-sid="${finished}"] .attention-message`)).toBe('Version bumped to 1.4.0.');
    expect(await page.locator(`#needs-you li[data-sid="${failed}"], #needs-you li[data-sid="${finished}"]`).count()).toBe(0);
    await page.waitForFunction(() => document.title === '(1) Session Hub');
    // the list row says it too
    await waitForText(page, `#sessions li[data-sid="${failed}"] .attention-line`, 'stopped on an error');
    expect(await page.getAttribute(`#sessions li[data-sid="${finished}"]`, 'data-activity')).not.toBe('waiting');
    // "needs you" as a filter: only the one that asks
    await page.locator('#filter-needs-you').check();
    await page.waitForSelector(`#sessions li[data-sid="${finished}"]`, { state: 'detached' });
    expect(await page.locator(`#sessions li[data-sid="${asks}"]`).count()).toBe(1);
    await page.locator('#filter-needs-you').uncheck();

    await sdk.setAttention(failed, null);
    await page.waitForSelector(`#ready li[data-sid="${failed}"]`, { state: 'detached' });
    await sdk.setAttention(asks, null);
    await page.waitForFunction(() => document.title === 'Session Hub');
    await page.waitForSelector('#needs-you', { state: 'detached' });
    await sdk.setAttention(asks, 'question', { message: 'Which branch should I use?' });
    await screenshot(page, 'needs-you');
    await page.locator(`#needs-you li[data-sid="${asks}"] .waited`).click();
    await page.waitForSelector('#detail .summary h2');
    expect(page.url()).toContain(`#/s/${asks}`);
    await waitForText(page, '#detail .attention-line', 'asks you something');
  });
});

describe('approvals', () => {
  it('lets an operator allow from the needs-you row and shows the outcome, and a deny in the detail with who decided', async () => {
    await clearAll();
    const sid = await startSession(`approve-${Date.now()}`);
    await prompt(sid, 'Clean up');
    const first = await openApproval(hub.deps, hookActor, { sid, tool: 'Bash', input: { command: 'rm -rf node_modules' }, cwd: '/work/app', message: 'Claude needs your permission to use Bash' });

    await signIn(page, hub.url, hub.tokens.operator);
    const row = `#needs-you li[data-sid="${sid}"]`;
    await waitForText(page, `${row} .attention-badge`, 'wants approval to run Bash');
    const item = `${row} [data-approval-id="${first.approvalId}"]`;
    await waitForText(page, `${item} .approval-input`, 'rm -rf node_modules');
    await waitForText(page, `${item} .approval-cwd`, '/work/app');
    await page.waitForFunction(() => document.title === '(1) Session Hub');
    await screenshot(page, 'needs-you-approval');
    await page.locator(`${item} button[data-decision="allow"]`).click();
    // decided at once; the hub clears the attention and the row leaves
    await page.waitForFunction(() => document.title === 'Session Hub');
    const stored = await fetch(`${hub.url}/api/sessions/${sid}/approvals`, { headers: { authorization: `Bearer ${hub.tokens.dashboard}` } });
    expect(((await stored.json()) as { approvals: { status: string; decidedBy: string }[] }).approvals[0]).toMatchObject({ status: 'allowed', decidedBy: tokenId(hub.tokens.operator) });

    // a second one, opened live while the detail is open
    await page.goto(`${hub.url}/#/s/${encodeURIComponent(sid)}`);
    await page.waitForSelector('#detail .summary h2');
    await waitForText(page, `#session-approvals [data-approval-id="${first.approvalId}"] .approval-outcome`, 'allowed');
    const second = await openApproval(hub.deps, hookActor, { sid, tool: 'Write', input: { file_path: '/work/app/.env', content: 'x' }, cwd: '/work/app' });
    const secondItem = `#session-approvals [data-approval-id="${second.approvalId}"]`;
    await waitForText(page, `${secondItem} .approval-input`, '/work/app/.env');
    await page.locator(`${secondItem} button[data-decision="deny"]`).click();
    await page.waitForSelector(`${secondItem}[data-status="denied"]`);
    await waitForText(page, `${secondItem} .approval-outcome`, 'denied');
    expect(await textOf(page, `${secondItem} .decided-by`)).toBe(tokenId(hub.tokens.operator));
    expect(await page.locator(`${secondItem} button`).count()).toBe(0);
    await screenshot(page, 'detail-approvals');
  });

  it('shows a watch-only token "waiting for approval" without buttons', async () => {
    await clearAll();
    const sid = await startSession(`watch-${Date.now()}`);
    const approval = await openApproval(hub.deps, hookActor, { sid, tool: 'Bash', input: { command: 'make deploy' }, cwd: '/work/app' });
    await signIn(page, hub.url, hub.tokens.dashboard);
    const item = `#needs-you [data-approval-id="${approval.approvalId}"]`;
    await waitForText(page, `${item} .approval-outcome`, 'waiting for approval');
    expect(await page.locator(`${item} button`).count()).toBe(0);
    // says which token decides, rather than leaving the person wondering where the buttons went
    expect(await page.locator(`${item} .approval-who`).textContent()).toBe('To allow or deny it here, sign in with an admin or operator token.');
  });
});

describe('notifications', () => {
  it('offers a one-click opt-in and notifies once per attention change, titled with the session', async () => {
    await clearAll();
    await context.grantPermissions(['notifications'], { origin: hub.url });
    // record what the page shows through the browser's Notification API (headless shows nothing)
    await page.addInitScript(() => {
      const shown: { title: string; body: string }[] = [];
      (window as unknown as { shownNotifications: typeof shown }).shownNotifications = shown;
      const Real = window.Notification;
      class Recording extends Real {
        constructor(title: string, options?: NotificationOptions) {
          super(title, options);
          shown.push({ title, body: options?.body ?? '' });
        }
      }
      Object.defineProperty(window, 'Notification', { value: Recording });
    });
    const sid = await startSession(`notify-${Date.now()}`);
    await prompt(sid, 'Refactor the parser');
    await signIn(page, hub.url, hub.tokens.dashboard);
    await page.locator('#notify-toggle').click();
    await waitForText(page, '#notify-toggle', '✓ while open');
    expect(await textOf(page, '#notify-label')).toBe('Alert me');

    await sdk.setAttention(sid, 'question', { message: 'Keep the old API?' });
    await page.waitForFunction(() => (window as unknown as { shownNotifications: unknown[] }).shownNotifications.length === 1);
    // more changes of the same session that do not change its attention: no second notification
    await prompt(sid, 'Also the lexer');
    await sdk.setAttention(sid, 'question', { message: 'Keep the old API?' });
    await waitForText(page, `#sessions li[data-sid="${sid}"] .prompt`, 'Also the lexer');
    const shown = await page.evaluate(() => (window as unknown as { shownNotifications: { title: string; body: string }[] }).shownNotifications);
    expect(shown).toEqual([{ title: 'Refactor the parser', body: 'asks you something' }]);
    await sdk.setAttention(sid, 'done');
    await page.waitForFunction(() => (window as unknown as { shownNotifications: unknown[] }).shownNotifications.length === 2);
    expect((await page.evaluate(() => (window as unknown as { shownNotifications: { body: string }[] }).shownNotifications))[1]!.body).toBe('finished');
    // the hub serves the push module (hub/dashboard/push.js): the Web Push opt-in sits beside it
    expect(await page.locator('#push-toggle').count()).toBe(1);
  });
});

describe('web push opt-in', () => {
  it('shows the push button once the page has its push module, and hands it the token', async () => {
    // the module another branch adds (hub/dashboard/push.js), served here as the browser would get it
    await page.route('**/dashboard/push.js', (route) =>
      route.fulfill({
        contentType: 'text/javascript; charset=utf-8',
        body: 'export async function enablePush(token) { window.pushCalls = [...(window.pushCalls ?? []), ["enable", token]]; }\n' +
          'export async function disablePush() { window.pushCalls = [...(window.pushCalls ?? []), ["disable"]]; }\n',
      }),
    );
    await signIn(page, hub.url, hub.tokens.dashboard);
    await page.locator('#push-toggle').click();
    await waitForText(page, '#push-toggle', '✓ when closed');
    await page.locator('#push-toggle').click();
    await page.waitForSelector('#push-toggle[aria-pressed="false"]');
    expect(await page.evaluate(() => (window as unknown as { pushCalls: unknown[] }).pushCalls)).toEqual([['enable', hub.tokens.dashboard], ['disable']]);
  });
});

describe('usage', () => {
  it('shows cost per session, tokens per model with "no price known", and the usage view with a daily chart', async () => {
    const sid = await startSession(`usage-${Date.now()}`);
    await prompt(sid, 'Write the docs');
    const stop = await runner.emitWithAck('turn-stop', {
      sid,
      usage: [
        { model: 'claude-sonnet-4-5', inputTokens: 100_000, outputTokens: 10_000 },
        { model: 'local-llm', inputTokens: 500, outputTokens: 20 },
      ],
    });
    expect(stop.ok).toBe(true);
    await signIn(page, hub.url, hub.tokens.dashboard);
    // 100k input at $3/M + 10k output at $15/M = $0.45, plus the unpriced local model's tokens
    await waitForText(page, `#sessions li[data-sid="${sid}"] .cost`, '$0.45 + 520 tokens with no price known');
    await page.locator(`#sessions li[data-sid="${sid}"] a.title`).click();
    await page.waitForSelector('#session-usage tr[data-model="local-llm"]');
    expect(await textOf(page, '#session-usage tr[data-model="local-llm"] .model-cost')).toBe('no price known');
    expect(await textOf(page, '#session-usage tr[data-model="claude-sonnet-4-5"] .model-cost')).toBe('$0.45');

    await page.locator('#nav-usage').click();
    await waitForText(page, '#usage-total', '$0.45');
    // one day of usage: a sentence, not a chart with one sliver in an empty box (issue 22 point 4)
    await waitForText(page, '#usage-chart-note', `All of it on ${new Date().toISOString().slice(0, 10)}`);
    expect(await page.locator('#usage-chart').count()).toBe(0);
    await page.locator('#usage-group').selectOption('model');
    await page.waitForSelector('#usage-groups tr[data-key="local-llm"]');
    expect(await textOf(page, '#usage-groups tr[data-key="local-llm"] td:last-child')).toBe('no price known');
    await screenshot(page, 'usage-view');
  });
});

describe('phone width', () => {
  it('fits 390 px with needs-you, approvals, filters and the usage view', async () => {
    await clearAll();
    const sid = await startSession(`phone-${'long'.repeat(30)}-${Date.now()}`);
    await openApproval(hub.deps, hookActor, { sid, tool: 'Bash', input: { command: `echo ${'x'.repeat(300)}` }, cwd: `/work/${'deep/'.repeat(40)}app` });
    await page.setViewportSize({ width: 390, height: 800 });
    await signIn(page, hub.url, hub.tokens.operator);
    await page.waitForSelector('#needs-you [data-approval-id] button[data-decision="allow"]');
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await screenshot(page, 'phone-needs-you');
    await page.locator(`#needs-you li[data-sid="${sid}"] a.title`).click();
    await page.waitForSelector('#session-approvals [data-approval-id]');
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.locator('#nav-usage').click();
    await page.waitForSelector('#usage-chart, #usage-chart-note');
    expect(await overflow()).toBeLessThanOrEqual(0);
    await screenshot(page, 'phone-usage');
  });
});
