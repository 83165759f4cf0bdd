/**
 * Issue 22 point 4, the page's rough edges a new user hit, each seen at 390 or 1280 px: words run
 * together, a usage heading broken mid-word, a one-day chart that is an empty box, titles cut at 80
 * characters, row times that stop ticking, jargon, facts above what the agent is doing on a phone,
 * views a link cannot reopen, and agents offered that were never seen. Real hub, real runner socket.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../shared/protocol/json.js';
import { putTurnUsage } from '../../hub/store/usage.js';
import type { RunnerSocket } from '../helpers/clients.js';
import type { TestHub } from '../helpers/hub.js';
import { screenshot, signIn, textOf, useDashboardPages, waitForText } from './browser.js';

let hub: TestHub;
let runner: RunnerSocket;
let page: Page;

useDashboardPages({
  suite: (started) => ({ hub, runner } = started),
  test: (opened) => ({ page } = opened),
});

const DAY_MS = 86_400_000;

async function startSession(tag: string, flavor = 'claude', metadata: JsonObject = { path: '/work/app', claudeSessionId: 'abc' }): Promise<string> {
  const ack = await runner.emitWithAck('session-start', { tag: `${tag}-${Date.now()}`, flavor, source: 'startup', metadata });
  if (!ack.ok) throw new Error(ack.error.message);
  return ack.session.sid;
}
async function prompt(sid: string, text: string): Promise<void> {
  expect((await runner.emitWithAck('prompt-submit', { sid, prompt: text })).ok).toBe(true);
}
async function stopWithUsage(sid: string): Promise<void> {
  const stop = await runner.emitWithAck('turn-stop', { sid, usage: [{ model: 'claude-sonnet-4-5', inputTokens: 123_456, outputTokens: 7_890, cacheReadTokens: 45_000 }] });
  expect(stop.ok).toBe(true);
}
const openSession = async (sid: string) => {
  await page.goto(`${hub.url}/#/s/${encodeURIComponent(sid)}`);
  await page.waitForSelector('#detail .summary h2');
};
/** How many lines an element's text takes (its text's line boxes). */
const linesOf = (selector: string) =>
  page.$$eval(selector, (els) =>
    els.map((el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      return new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size;
    }),
  );

describe('words', () => {
  it('the wait and the agent\'s message are apart, on the detail page and in "needs you"', async () => {
    const message = 'Claude is waiting for your input';
    const sid = await startSession('words');
    await prompt(sid, 'Tidy the README');
    expect((await runner.emitWithAck('attention', { sid, kind: 'question', message })).ok).toBe(true);
    await signIn(page, hub.url, hub.tokens.dashboard);
    await waitForText(page, `#needs-you li[data-sid="${sid}"]`, message);
    for (const text of [await page.locator(`#needs-you li[data-sid="${sid}"] .session-meta`).textContent(), await page.locator(`#needs-you li[data-sid="${sid}"] .session-meta`).innerText()]) {
      // under a second on a fast page the wait reads 'since just now'
      expect(text).toMatch(new RegExp(`waiting (since just now|[^\\n]*\\d m?s)\\s+${message}`));
    }
    await page.locator(`#needs-you li[data-sid="${sid}"] a.title`).click();
    await waitForText(page, '#detail .attention-line', message);
    const line = page.locator('#detail .attention-line');
    for (const text of [await line.textContent(), await line.innerText()]) expect(text).toMatch(new RegExp(`waiting (since just now|[^\\n]*\\d m?s)\\s+${message}`));
  });
});

describe('usage at 390 px', () => {
  it('table headings stay whole ("Cost", not "Cos/t"), with no sideways scroll of the page', async () => {
    const sid = await startSession('usage-phone');
    await prompt(sid, 'Write the docs');
    await stopWithUsage(sid);
    await page.setViewportSize({ width: 390, height: 800 });
    await signIn(page, hub.url, hub.tokens.dashboard);
    await openSession(sid);
    await page.waitForSelector('#session-usage tr[data-model="claude-sonnet-4-5"]');
    expect(await linesOf('#session-usage th')).toEqual([1, 1, 1, 1, 1]);
    expect(await linesOf('#session-usage td:not(:first-child)')).toEqual([1, 1, 1, 1]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await screenshot(page, 'rough-usage-table-390');
  });

  it('one day of usage says so instead of an empty chart; two days draw two bars a person can see', async () => {
    const sid = await startSession('usage-days');
    await prompt(sid, 'Count the tokens');
    await stopWithUsage(sid);
    await page.setViewportSize({ width: 390, height: 800 });
    await signIn(page, hub.url, hub.tokens.dashboard);
    await page.goto(`${hub.url}/#/usage`);
    await waitForText(page, '#usage-chart-note', `All of it on ${new Date().toISOString().slice(0, 10)}`);
    expect(await page.locator('#usage-chart').count()).toBe(0);

    // a second day, three days ago
    await hub.deps.store.transaction((tx) =>
      putTurnUsage(tx, { turnId: `older-${sid}`, sid, namespace: 'default', openedAt: Date.now() - 3 * DAY_MS }, [
        { model: 'claude-sonnet-4-5', inputTokens: 50_000, outputTokens: 1_000, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.165 },
      ]),
    );
    await page.reload();
    await page.waitForSelector('#usage-chart rect.bar', { state: 'attached' });
    const bars = await page.$$eval('#usage-chart rect.bar', (rects) => rects.map((r) => r.getBoundingClientRect()).filter((b) => b.height > 0).map((b) => ({ w: b.width, h: b.height })));
    expect(bars).toHaveLength(2);
    for (const bar of bars) {
      expect(bar.w).toBeGreaterThanOrEqual(5);
      expect(bar.h).toBeGreaterThanOrEqual(1);
    }
    await screenshot(page, 'rough-usage-chart-390');
  });
});

describe('titles', () => {
  const long = 'Refactor the session list so that a search with filters keeps its place in the address, and make the usage view show a chart that a person can read on a phone';

  it('a long first prompt is the whole title at 1280 px, and two lines at most at 390 px (the whole in its tooltip)', async () => {
    expect(long.length).toBeGreaterThan(140);
    const sid = await startSession('long-title');
    await prompt(sid, long);
    await signIn(page, hub.url, hub.tokens.dashboard);
    const title = page.locator(`#sessions li[data-sid="${sid}"] a.title`);
    await waitForText(page, `#sessions li[data-sid="${sid}"] a.title`, 'Refactor the session list');
    expect(await title.textContent()).toBe(long);
    // not clamped at desktop width: every character is shown
    expect(await title.evaluate((el) => el.scrollHeight <= el.clientHeight + 1)).toBe(true);
    await page.setViewportSize({ width: 390, height: 800 });
    const lineHeight = await title.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight) || 20);
    expect(await title.evaluate((el) => el.getBoundingClientRect().height)).toBeLessThanOrEqual(lineHeight * 2 + 2);
    expect(await title.getAttribute('title')).toBe(long);
    await openSession(sid);
    expect(await textOf(page, '#detail .summary h2')).toBe(long);
  });
});

describe('row times', () => {
  it('keep ticking without any change to the session', async () => {
    await page.clock.install();
    const sid = await startSession('ticking');
    await signIn(page, hub.url, hub.tokens.dashboard);
    const ago = page.locator(`#sessions li[data-sid="${sid}"] time.ago`);
    await waitForText(page, `#sessions li[data-sid="${sid}"] time.ago`, 'just now');
    await page.clock.fastForward('03:05');
    await page.waitForFunction((s) => document.querySelector(`#sessions li[data-sid="${s}"] time.ago`)?.textContent === '3 min ago', sid);
    expect(await ago.textContent()).toBe('3 min ago');
  });

  it('follow a working agent: a tool use in a long turn is activity (the row does not read "x s ago" while it works), and the row moves up', async () => {
    const working = await startSession('working');
    await prompt(working, 'Run the whole suite');
    // `other` must be newer: on loopback the prompt's ack and the next start can land in the same
    // millisecond, and equal times order by sid (random), which put `working` first in a CI run
    await new Promise((resolve) => setTimeout(resolve, 5));
    const other = await startSession('other');
    await signIn(page, hub.url, hub.tokens.dashboard);
    await page.waitForSelector(`#sessions li[data-sid="${working}"]`);
    // past "just now" (10 s), with no tool use yet
    await waitForText(page, `#sessions li[data-sid="${working}"] time.ago`, ' s ago', 20_000);
    expect(await page.locator('#sessions li.session').first().getAttribute('data-sid')).toBe(other);
    expect((await runner.emitWithAck('tool-use', { sid: working, tool: 'Bash', toolUseId: 'tu-1', input: { command: 'npm test' } })).ok).toBe(true);
    await waitForText(page, `#sessions li[data-sid="${working}"] time.ago`, 'just now');
    await page.waitForFunction((s) => document.querySelector('#sessions li.session')?.getAttribute('data-sid') === s, working);
  });
});

describe('plain words', () => {
  it('the detail page says what the agent reported, and Repair names the agent, not a metadata key', async () => {
    const sid = await startSession('jargon');
    await signIn(page, hub.url, hub.tokens.admin);
    await openSession(sid);
    await page.waitForSelector('#action-repair');
    const text = await page.locator('#detail').innerText();
    expect(text).not.toContain('claudeSessionId');
    expect(text).not.toMatch(/\bdocument\b/);
    expect(text).not.toMatch(/\bMetadata\b/);
    expect(await page.locator('#action-repair').locator('xpath=../..').innerText()).toContain('the id Claude Code needs to resume it');
  });
});

describe('the detail page on a phone', () => {
  it('shows what the agent is doing (its turns) before the facts a person rarely needs', async () => {
    const sid = await startSession('phone-order');
    await prompt(sid, 'Fix the flaky test');
    await page.setViewportSize({ width: 390, height: 800 });
    await signIn(page, hub.url, hub.tokens.dashboard);
    await openSession(sid);
    await page.waitForSelector('.turns-panel li.turn');
    const top = (selector: string) => page.locator(selector).first().evaluate((el) => el.getBoundingClientRect().top);
    const turns = await top('.turns-panel');
    expect(turns).toBeLessThan(await top('.facts'));
    expect(turns).toBeLessThan(await top('.ids'));
    // the turn is on the first screen
    expect(turns).toBeLessThan(800);
    await screenshot(page, 'rough-detail-390');
  });
});

describe('the address', () => {
  it('holds the search, filters and order: a link reopens the same view, and so does a reload', async () => {
    const needle = `needle${Date.now()}`;
    const codex = await startSession('url-codex', 'codex', { path: `/work/tools/${needle}` });
    await startSession('url-claude', 'claude', { path: `/work/app/${needle}` });
    await signIn(page, hub.url, hub.tokens.dashboard);
    await page.locator('#search').fill(needle);
    await page.locator('#filter-agent').selectOption('codex');
    await page.waitForSelector(`#sessions[data-source="search"] li[data-sid="${codex}"]`);
    await page.waitForFunction(() => document.querySelectorAll('#sessions > li.session').length === 1);
    const link = page.url();
    expect(new URL(link).hash).toBe(`#/?q=${needle}&agent=codex`);

    await page.reload();
    await page.waitForSelector(`#sessions[data-source="search"] li[data-sid="${codex}"]`);
    expect(await page.locator('#search').inputValue()).toBe(needle);

    // the link in a new tab (signed out there): after signing in, the same view
    const other = await page.context().newPage();
    await other.goto(link);
    await other.locator('#token-input').fill(hub.tokens.dashboard);
    await other.locator('#signin-form button[type=submit]').click();
    await other.waitForSelector(`#sessions[data-source="search"] li[data-sid="${codex}"]`);
    expect(await other.locator('#search').inputValue()).toBe(needle);
    expect(await other.locator('#filter-agent').inputValue()).toBe('codex');
    expect(await other.locator('#sessions > li.session').count()).toBe(1);
    await other.close();

    // the usage view's range and grouping too
    await page.goto(`${hub.url}/#/usage?days=7&by=model`);
    await page.waitForSelector('#usage');
    expect(await page.locator('#usage-range').inputValue()).toBe('7');
    expect(await page.locator('#usage-group').inputValue()).toBe('model');
    await page.locator('#usage-group').selectOption('flavor');
    await page.waitForFunction(() => location.hash === '#/usage?days=7&by=flavor');
  });

  it('offers only the agents that have a session in this namespace', async () => {
    await startSession('agents-claude', 'claude');
    await startSession('agents-codex', 'codex');
    await signIn(page, hub.url, hub.tokens.dashboard);
    await page.waitForSelector('#sessions li.session');
    const offered = await page.$$eval('#filter-agent option', (options) => options.map((o) => (o as HTMLOptionElement).value));
    const present = await page.$$eval('#sessions li.session .agent', (els) => [...new Set(els.map((e) => e.textContent))]);
    expect(offered).toEqual(['', 'claude', 'codex']);
    expect(present.sort()).toEqual(['Claude Code', 'Codex']);
  });
});
