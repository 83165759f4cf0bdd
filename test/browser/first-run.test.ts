/**
 * A new user's first look: with no session yet, the list says how agents get there — from a
 * computer's machine runner (for those who may start agents) or through an agent's hooks — naming
 * the hook installs the registry knows, at phone width without sideways scroll.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { FLAVORS } from '../../shared/flavors.js';
import type { TestHub } from '../helpers/hub.js';
import { TEST_TOKENS } from '../helpers/tokens.js';
import { screenshot, signIn, textOf, useDashboardPages } from './browser.js';

let hub: TestHub;
let page: Page;

useDashboardPages({
  suite: (started) => ({ hub } = started),
  test: (opened) => ({ page } = opened),
});

const installable = [...FLAVORS.values()].filter((flavor) => flavor.hookConfig).map((flavor) => flavor.id);

describe('an empty hub', () => {
  it('tells an admin to start an agent from Machines or install an agent\'s hooks, at 390 px', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    // namespace "other" has no session
    await signIn(page, hub.url, TEST_TOKENS.otherAdmin);
    await page.waitForSelector('#list-empty');
    const text = await textOf(page, '#list-empty');
    expect(text).toContain('No sessions yet.');
    expect(text).toContain(`session-hub hook install ${installable[0]} (or ${installable.slice(1).join(', ')})`);
    expect(await page.locator('#list-empty a[href="#/machines"]').count()).toBe(1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, 'first-run-empty-list-390');
    await page.locator('#list-empty a[href="#/machines"]').click();
    await page.waitForSelector('.machines, #machines, h2');
    expect(page.url()).toMatch(/#\/machines$/);
  });

  it('shows a dashboard token (which may not start agents) the hook install alone', async () => {
    await signIn(page, hub.url, TEST_TOKENS.otherDashboard);
    await page.waitForSelector('#list-empty');
    expect(await textOf(page, '#list-empty')).toContain(`session-hub hook install ${installable[0]}`);
    expect(await page.locator('#list-empty a[href="#/machines"]').count()).toBe(0);
  });
});
