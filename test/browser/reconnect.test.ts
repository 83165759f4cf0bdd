/**
 * The page's live link across hub restarts: it reconnects by itself with `lastSeq`, catches up on
 * what it missed, and on `resync { reason: 'gap' }` replaces its snapshots instead of looping.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub } from '../helpers/hub.js';
import { closeAllClients, connectRunner, startSession } from '../helpers/clients.js';
import { TEST_TOKEN_SPEC, TEST_TOKENS } from '../helpers/tokens.js';
import { launchBrowser, signIn, textOf, waitForText } from './browser.js';

type TestHub = Awaited<ReturnType<typeof startTestHub>>;

describe('reconnecting', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'session-hub-browser-'));
  const freshDir = mkdtempSync(join(tmpdir(), 'session-hub-browser-fresh-'));
  let hub: TestHub | undefined;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    context = await browser.newContext();
    page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
  });

  afterAll(async () => {
    closeAllClients();
    await hub?.close();
    await browser?.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(freshDir, { recursive: true, force: true });
  });

  it('catches up after a hub restart and replaces its sessions after a gap', async () => {
    hub = await startTestHub({ dataDir });
    const port = hub.port;
    const url = hub.url;
    let runner = await connectRunner(url, hub.tokens.runner);
    const session = await startSession(runner, { metadata: { path: '/tmp/before', claudeSessionId: 'abc' } });
    await signIn(page, url, hub.tokens.dashboard);
    await page.waitForSelector(`li[data-sid="${session.sid}"]`);
    await page.evaluate(() => ((window as unknown as { stillHere: boolean }).stillHere = true));

    // The hub goes away: the page says it is reconnecting.
    closeAllClients();
    await hub.close();
    hub = undefined;
    await page.waitForSelector('#conn[data-state="reconnecting"]');

    // Back on the same port and data: a write made before the page is back shows up without a reload.
    hub = await startTestHub({ dataDir, config: { port } });
    runner = await connectRunner(url, hub.tokens.runner);
    const joined = await runner.emitWithAck('session-join', { sid: session.sid });
    expect(joined.ok).toBe(true);
    const write = await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 1, patch: { path: '/tmp/after' } });
    expect(write.result).toBe('success');
    await page.waitForSelector('#conn[data-state="live"]', { timeout: 15_000 });
    await waitForText(page, `li[data-sid="${session.sid}"] .project`, 'after');

    // A different database behind the same address: the page's lastSeq is from the future, the hub
    // answers a gap, and the page shows that hub's sessions only, still live.
    closeAllClients();
    await hub.close();
    hub = await startTestHub({ dataDir: freshDir, config: { port } });
    runner = await connectRunner(url, hub.tokens.runner);
    await page.waitForSelector('#conn[data-state="reconnecting"], #conn[data-state="connecting"]', { timeout: 10_000 }).catch(() => {});
    await page.waitForSelector(`li[data-sid="${session.sid}"]`, { state: 'detached', timeout: 15_000 });
    const other = await startSession(runner);
    await page.waitForSelector(`li[data-sid="${other.sid}"]`);
    expect(await page.getAttribute('#conn', 'data-state')).toBe('live');
    expect(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere)).toBe(true);
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('says the token was refused when a reconnect finds it gone', async () => {
    await hub?.close();
    hub = await startTestHub();
    const port = hub.port;
    const fresh = await context.newPage();
    fresh.on('pageerror', (err) => pageErrors.push(err.message));
    await signIn(fresh, hub.url, hub.tokens.dashboard);

    await hub.close();
    await fresh.waitForSelector('#conn[data-state="reconnecting"]');
    const withoutDashboardToken = TEST_TOKEN_SPEC.split(',').filter((entry) => !entry.endsWith(TEST_TOKENS.dashboard)).join(',');
    hub = await startTestHub({ config: { port, tokens: withoutDashboardToken } });
    await fresh.waitForSelector('#refused', { state: 'visible', timeout: 15_000 });
    expect(await textOf(fresh, '#refused-message')).toContain('unauthorized');
    expect(await fresh.getAttribute('#conn', 'data-state')).toBe('refused');
    await fresh.close();
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
