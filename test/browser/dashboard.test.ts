/**
 * The dashboard page end to end (issue 5): a real hub in process, real socket.io-client runners,
 * and Debian's chromium driving the page the hub serves.
 */
import type { Browser, Page } from 'playwright-core';
import type { JsonObject } from '../../shared/protocol/json.js';
import { describe, expect, it } from 'vitest';
import type { RunnerSocket } from '../helpers/clients.js';
import type { TestHub } from '../helpers/hub.js';
import { useDashboardPages, screenshot, signIn, textOf, waitForText } from './browser.js';

let hub: TestHub;
let browser: Browser;
let runner: RunnerSocket;
let page: Page;
let tagCount = 0;

useDashboardPages({
  suite: (started) => ({ hub, browser, runner } = started),
  test: (opened) => ({ page } = opened),
});

/** Starts a fresh claude session through the runner and returns its sid. */
async function startSession(metadata: JsonObject = { path: '/tmp/x', claudeSessionId: 'abc' }): Promise<string> {
  tagCount += 1;
  const ack = await runner.emitWithAck('session-start', {
    tag: `browser-${tagCount}-${Date.now()}`,
    flavor: 'claude',
    source: 'startup',
    metadata,
  });
  if (!ack.ok) throw new Error(`session-start failed: ${ack.error.message}`);
  return ack.session.sid;
}

async function writeMetadata(sid: string, expectedVersion: number, metadata: JsonObject) {
  const ack = await runner.emitWithAck('update-metadata', { sid, expectedVersion, metadata });
  if (ack.result !== 'success') throw new Error(`update-metadata: ${JSON.stringify(ack)}`);
  return ack;
}

const row = (sid: string) => `#sessions li[data-sid="${sid}"]`;

describe('sign-in', () => {
  it('signs in with a token, lists the sessions and remembers the token', async () => {
    const sid = await startSession();
    await signIn(page, hub.url, hub.tokens.dashboard);
    await page.waitForSelector(row(sid));
    expect(await textOf(page, `${row(sid)} .agent`)).toBe('Claude Code');
    expect(await textOf(page, `${row(sid)} .project`)).toBe('x');
    expect(await page.getAttribute(`${row(sid)} .project`, 'title')).toBe('/tmp/x');
    expect(await page.getAttribute(row(sid), 'data-state')).toBe('running');
    expect(await page.getAttribute(row(sid), 'data-activity')).toBe('idle');
    expect(await textOf(page, '#who')).toBe('dashboard · default');

    await page.reload();
    await page.waitForSelector('#conn[data-state="live"]');
    await page.waitForSelector(row(sid));
    expect(await page.isVisible('#signin')).toBe(false);
  });

  it('says in the form when a token is refused, names the tokens that sign in, and keeps nothing', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(hub.url);
    expect(await textOf(page, 'label[for="token-input"]')).toBe('Dashboard, operator or admin token');
    // "remember me": the box right beside its words
    const box = await page.locator('#remember').boundingBox();
    const words = await page.evaluate(() => {
      const label = document.querySelector('label[for="remember"]')!;
      const range = document.createRange();
      range.setStart(label.lastChild!, 1);
      range.setEnd(label.lastChild!, label.lastChild!.textContent!.length);
      return range.getBoundingClientRect().left;
    });
    expect(words - (box!.x + box!.width)).toBeLessThan(16);

    await page.locator('#token-input').fill('not-a-real-token');
    await page.locator('#signin-form button[type=submit]').click();
    await page.waitForFunction(() => document.querySelector('#signin-error')?.textContent?.includes('refused'));
    expect(await textOf(page, '#signin-error')).toContain('unauthorized');
    // no dead end: the form is still there for the next try
    expect(await page.isVisible('#token-input')).toBe(true);
    expect(await page.locator('#refused').count()).toBe(0);
    expect(await page.evaluate(() => [localStorage.getItem('sessionHub.token'), sessionStorage.getItem('sessionHub.token')])).toEqual([null, null]);

    // a runner's token: said, not kept
    await page.locator('#token-input').fill(hub.tokens.runner);
    await page.locator('#signin-form button[type=submit]').click();
    await page.waitForFunction(() => document.querySelector('#signin-error')?.textContent?.includes('runner token'));
    expect(await page.evaluate(() => [localStorage.getItem('sessionHub.token'), sessionStorage.getItem('sessionHub.token')])).toEqual([null, null]);
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, hub.url, hub.tokens.dashboard);
  });
});

describe('live table', () => {
  it("shows a runner's update-metadata within a second, without a reload", async () => {
    const sid = await startSession();
    await signIn(page, hub.url, hub.tokens.dashboard);
    await page.waitForSelector(row(sid));
    await page.evaluate(() => ((window as unknown as { stillHere: boolean }).stillHere = true));

    await writeMetadata(sid, 1, { path: '/tmp/moved', claudeSessionId: 'abc' });
    await waitForText(page, `${row(sid)} .project`, 'moved', 1000);
    expect(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere)).toBe(true);
    await screenshot(page, 'table');
  });

  it('changes the activity when the session ends', async () => {
    const sid = await startSession();
    await signIn(page, hub.url, hub.tokens.dashboard);
    await page.waitForSelector(`${row(sid)}[data-state="running"]`);

    const ack = await runner.emitWithAck('session-end', { sid, reason: 'completed' });
    expect(ack.ok).toBe(true);
    await page.waitForSelector(`${row(sid)}[data-state="ended"][data-activity="ended"]`, { timeout: 1000 });
    expect(await textOf(page, `${row(sid)} .activity-badge`)).toBe('Ended');
  });

  it("shows the open turn's prompt, and keeps it as the last prompt when the turn closes", async () => {
    const sid = await startSession({ path: '/tmp/x', title: 'Parser work', claudeSessionId: 'abc' });
    await signIn(page, hub.url, hub.tokens.dashboard);
    await page.waitForSelector(row(sid));

    const prompt = `Refactor the parser ${'and keep going '.repeat(20)}`;
    const submitted = await runner.emitWithAck('prompt-submit', { sid, prompt });
    expect(submitted.ok).toBe(true);
    await waitForText(page, `${row(sid)} .prompt`, 'Refactor the parser', 1000);
    expect((await textOf(page, `${row(sid)} .prompt`)).length).toBeLessThanOrEqual(120);
    await page.waitForSelector(`${row(sid)}[data-activity="working"]`);

    // closed: the row keeps it as the last prompt, and the session waits for its user
    const stopped = await runner.emitWithAck('turn-stop', { sid, response: 'done' });
    expect(stopped.ok).toBe(true);
    await page.waitForSelector(`${row(sid)}[data-activity="idle"]`, { timeout: 1000 });
    expect(await textOf(page, `${row(sid)} .prompt`)).toContain('Refactor the parser');
  });

  it('inserts data as text, never as markup', async () => {
    const sid = await startSession({ path: '/tmp/<img src=x onerror="window.pwned=1">', title: '<b>bold</b>', claudeSessionId: 'abc' });
    await signIn(page, hub.url, hub.tokens.dashboard);
    await waitForText(page, `${row(sid)} .project`, '<img src=x');
    expect(await textOf(page, `${row(sid)} a.title`)).toBe('<b>bold</b>');
    expect(await page.locator(`${row(sid)} b`).count()).toBe(0);
    expect(await page.locator(`${row(sid)} img`).count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
  });

  it('fits a phone without sideways scrolling', async () => {
    const sid = await startSession();
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const phonePage = await phone.newPage();
    try {
      await signIn(phonePage, hub.url, hub.tokens.dashboard);
      await phonePage.waitForSelector(row(sid));
      const width = await phonePage.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(390);
      await screenshot(phonePage, 'table-phone');
    } finally {
      await phone.close();
    }
  });
});

describe('detail view', () => {
  it('shows the history with carried keys highlighted, and no actions for a dashboard token', async () => {
    const sid = await startSession();
    // A whole-document write that leaves out path and claudeSessionId: both are carried forward.
    await writeMetadata(sid, 1, { title: 'second version' });
    await signIn(page, hub.url, hub.tokens.dashboard);
    await page.click(`${row(sid)} a.title`);

    await page.waitForSelector('li.version[data-version="2"]');
    const carried = await page.locator('li.version[data-version="2"] .chip-carried').allTextContents();
    expect(carried).toEqual(expect.arrayContaining(['path', 'claudeSessionId']));
    expect(await textOf(page, '.metadata .version')).toBe('v2');
    expect(await page.locator('.metadata pre').textContent()).toContain('second version');
    expect(await page.locator('li.version[data-version="1"]').count()).toBe(1);
    expect(await page.locator('#action-archive').count()).toBe(0);
    expect(await textOf(page, '.actions')).toContain('Read-only');
    await screenshot(page, 'detail');

    await page.click('.back a');
    await page.waitForSelector('#list', { state: 'visible' });
  });

  it('shows the turns with their activity and follows new ones live', async () => {
    const sid = await startSession();
    await signIn(page, hub.url, hub.tokens.dashboard);
    await page.goto(`${hub.url}/#/s/${encodeURIComponent(sid)}`);
    await waitForText(page, '.turns-panel', 'No turns yet.');

    expect((await runner.emitWithAck('prompt-submit', { sid, prompt: 'List the files' })).ok).toBe(true);
    const used = await runner.emitWithAck('tool-use', { sid, tool: 'Bash', toolUseId: 'tu-1', input: { command: 'ls' }, output: 'a.txt' });
    expect(used.ok).toBe(true);
    await waitForText(page, 'li.turn[data-status="open"] li.tool', 'Bash');
    expect(await textOf(page, 'li.turn li.tool .tool-summary')).toBe('ls');
    expect(await textOf(page, 'li.turn .prompt summary')).toContain('List the files');

    expect((await runner.emitWithAck('turn-stop', { sid, response: 'Here they are' })).ok).toBe(true);
    await page.waitForSelector('li.turn[data-status="completed"]');
    expect(await textOf(page, 'li.turn .turn-head')).toContain('1 tool use');
    expect(await textOf(page, 'li.turn .response')).toBe('Here they are');
    await page.click('li.turn li.tool details summary');
    expect(await textOf(page, 'li.turn li.tool pre')).toContain('"command": "ls"');
  });

  it('lets an admin archive a session, and the row updates', async () => {
    const sid = await startSession();
    await signIn(page, hub.url, hub.tokens.admin);
    await waitForText(page, '#who', 'admin');
    await page.click(`${row(sid)} a.title`);
    await page.waitForSelector('#action-repair');

    await page.fill('#archive-reason', 'done with it');
    await page.click('#action-archive');
    await page.click('#confirm-yes');
    await waitForText(page, '.action-result.ok', 'Archived');
    await page.waitForSelector('[data-fact="state"] .state[data-state="archived"]', { timeout: 1000 });
    expect(await textOf(page, '[data-fact="state"]')).toBe('Archived: done with it');
    await waitForText(page, '[data-fact="last-run"]', 'The last run was cancelled');

    await page.click('.back a');
    await page.waitForSelector(`${row(sid)}[data-state="archived"][data-activity="ended"]`);
  });

  it('lets an admin repair a cleared resume token, and shows the hub error on a refused resume', async () => {
    const sid = await startSession();
    await runner.emitWithAck('update-metadata', { sid, expectedVersion: 1, patch: { claudeSessionId: null } });
    await signIn(page, hub.url, hub.tokens.admin);
    await page.goto(`${hub.url}/#/s/${encodeURIComponent(sid)}`);
    await page.waitForSelector('#action-resume');
    await waitForText(page, '[data-fact="resume"]', "Can't resume: the agent never reported a session to resume");
    expect(await page.getAttribute('[data-fact="resume"] .word', 'title')).toBe('no_token');

    await page.click('#action-resume');
    await page.click('#confirm-yes');
    await page.waitForSelector('.action-result.error');
    expect(await textOf(page, '.action-result')).not.toBe('');

    await page.click('#action-repair');
    expect(await textOf(page, '#confirm-text')).toContain('as a new version (v3)');
    await page.click('#confirm-yes');
    await waitForText(page, '.action-result.ok', 'claudeSessionId');
    await waitForText(page, '.metadata .version', 'v3');
    await page.waitForSelector('li.version[data-version="3"]');
    expect(await textOf(page, 'li.version[data-version="2"] .keys-cleared')).toContain('claudeSessionId');
  });
});
