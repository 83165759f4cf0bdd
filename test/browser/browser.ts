/**
 * Browser tests drive Debian's chromium through playwright-core; no browser is ever downloaded.
 * playwright gives each launch a fresh temporary profile, so nothing leaks between runs.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { connectRunner, type RunnerSocket } from '../helpers/clients.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = join(import.meta.dirname, '..', '..', 'test-results');

export function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`no chromium at ${CHROMIUM_PATH}: apt-get install -y chromium, or set CHROMIUM_PATH`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** Waits until `selector` exists and its text contains `text`. */
export async function waitForText(page: Page, selector: string, text: string, timeout = 5000): Promise<void> {
  await page.waitForFunction(
    ([sel, want]) => Array.from(document.querySelectorAll(sel)).some((el) => el.textContent?.includes(want)),
    [selector, text] as const,
    { timeout },
  );
}

export async function textOf(page: Page, selector: string): Promise<string> {
  return (await page.locator(selector).first().textContent())?.trim() ?? '';
}

/** Signs in through the form and waits until the live link is up. */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(url);
  await page.locator('#token-input').fill(token);
  await page.locator('#signin-form button[type=submit]').click();
  await page.waitForSelector('#conn[data-state="live"]', { timeout: 5000 });
}

/**
 * For a file of page tests: one hub, one browser and one runner for the file; a fresh 1280×800 page
 * per test, which must end with no page error (a script error, or a script or import map the
 * Content Security Policy blocked: those show only as console messages).
 */
export function useDashboardPages(handlers: {
  suite(started: { hub: TestHub; browser: Browser; runner: RunnerSocket }): unknown;
  test(opened: { context: BrowserContext; page: Page }): unknown;
}): void {
  let hub: TestHub | undefined;
  let browser: Browser | undefined;
  let runner: RunnerSocket | undefined;
  let context: BrowserContext | undefined;
  let pageErrors: string[] = [];
  beforeAll(async () => {
    hub = await startTestHub();
    browser = await launchBrowser();
    runner = await connectRunner(hub.url, hub.tokens.runner);
    handlers.suite({ hub, browser, runner });
  });
  afterAll(async () => {
    runner?.disconnect();
    await browser?.close();
    await hub?.close();
  });
  beforeEach(async () => {
    context = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    pageErrors = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) pageErrors.push(message.text());
    });
    handlers.test({ context, page });
  });
  afterEach(async () => {
    await context?.close();
    expect(pageErrors).toEqual([]);
  });
}
