/**
 * While the page cannot reach the hub it says so and offers nothing that would fail (issue 46.6):
 * the hub goes away under an open session page (a real hub, a real runner socket, Chromium at
 * 390 px): the page says the hub is out of reach, every control is disabled, the reply box no
 * longer promises "a reply reaches the agent now"; once the hub is back on the same port and data,
 * the controls return, and a send that failed with "the hub did not answer" no longer says so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAllClients, connectRunner, startSession } from '../helpers/clients.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { launchBrowser, screenshot, signIn } from './browser.js';

describe('the page while the hub is out of reach', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'session-hub-browser-link-'));
  let hub: TestHub | undefined;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
  });

  afterAll(async () => {
    closeAllClients();
    await hub?.close();
    await browser?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('says the hub is out of reach, disables what would fail, and clears the failure once it is back', async () => {
    hub = await startTestHub({ dataDir });
    const { port, url } = hub;
    const runner = await connectRunner(url, hub.tokens.runner);
    const session = await startSession(runner, { metadata: { path: '/tmp/project', claudeSessionId: '7c9e6679-7425-40de-944b-e07fc1f0b001' } });
    await signIn(page, url, hub.tokens.operator);
    await page.goto(`${url}/#/s/${encodeURIComponent(session.sid)}`);
    const send = page.locator('#session-messages button.send');
    await send.waitFor();
    expect(await send.isEnabled()).toBe(true);
    expect(await page.locator('#link-down').count()).toBe(0);

    // a send the hub never answers (the network fails under it): the page says so
    await page.route('**/messages', (route) => (route.request().method() === 'POST' ? route.abort('failed') : route.continue()));
    await page.locator('#session-messages textarea').fill('are you there?');
    await send.click();
    await page.waitForSelector('#session-messages .reply-error');
    expect(await page.locator('#session-messages .reply-error').textContent()).toContain('The hub did not answer');
    await page.unroute('**/messages');

    // the hub goes away
    closeAllClients();
    await hub.close();
    hub = undefined;
    await page.waitForSelector('#link-down');
    expect(await page.locator('#link-down').textContent()).toContain('The hub is out of reach: reconnecting');
    expect(await send.isDisabled()).toBe(true);
    expect(await page.locator('#session-messages .delivery').textContent()).toContain('a reply cannot be sent until the page is connected again');
    expect(await page.locator('main').textContent()).not.toContain('reaches the agent now');
    for (const button of await page.locator('main button').all()) expect(await button.isDisabled()).toBe(true);
    await screenshot(page, 'link-down-390');

    // back on the same port and data: the controls return, the old failure is gone
    hub = await startTestHub({ dataDir, config: { port } });
    await page.waitForSelector('#conn[data-state="live"]', { timeout: 20_000 });
    await page.waitForSelector('#link-down', { state: 'detached' });
    expect(await send.isEnabled()).toBe(true);
    await page.waitForSelector('#session-messages .reply-error', { state: 'detached' });
    expect(pageErrors).toEqual([]);
  }, 90_000);
});
