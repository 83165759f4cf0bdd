/**
 * Finding sessions among 10,000: the page subscribes to all of them and still renders a window of
 * rows (not 10,000), and the search box and filters ask the hub's HTTP list (text, agent, state),
 * a page at a time. Seeded through the store functions in one transaction (fast), on a real hub.
 * Asserts on DOM rows and results, never on timings (speed belongs in bench/).
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { insertSession } from '../../hub/store/sessions.js';
import type { RunnerSocket } from '../helpers/clients.js';
import type { TestHub } from '../helpers/hub.js';
import { useDashboardPages, screenshot, signIn, textOf } from './browser.js';

const COUNT = 10_000;

let hub: TestHub;
let runner: RunnerSocket;
let page: Page;

useDashboardPages({
  suite: (started) => ({ hub, runner } = started),
  test: (opened) => ({ page } = opened),
});

beforeAll(async () => {
  const now = Date.now();
  await hub.deps.store.transaction(async (tx) => {
    for (let i = 0; i < COUNT; i++) {
      const tag = i === 4242 ? 'needle-in-the-haystack' : `hay-${i}`;
      // every 10th session a codex one in the "tools" project
      const codex = i % 10 === 0;
      await insertSession(tx, {
        sid: `seed-${i.toString().padStart(5, '0')}`,
        namespace: 'default',
        tag,
        flavor: codex ? 'codex' : 'claude',
        parentSid: null,
        metadata: { path: codex ? `/work/tools/t${i}` : `/work/app${i % 7}`, ...(codex ? { projectRoot: '/work/tools' } : {}) },
        now: now - (COUNT - i) * 1000,
      });
    }
  });
}, 120_000);

const rows = () => page.locator('#sessions > li.session').count();

describe('10,000 sessions', () => {
  it('renders a window of the live list, shows more on demand, and searches through the hub', async () => {
    await signIn(page, hub.url, hub.tokens.dashboard);
    await page.waitForFunction((count) => document.querySelector('#list-count')?.textContent === String(count), COUNT, { timeout: 30_000 });
    expect(await rows()).toBe(100);
    // last activity first: the newest seeded session on top
    expect(await page.locator('#sessions > li.session').first().getAttribute('data-sid')).toBe(`seed-0${COUNT - 1}`);
    await page.locator('#show-more').click();
    await page.waitForFunction(() => document.querySelectorAll('#sessions > li.session').length === 200);

    // text search: the hub's list, one match
    await page.locator('#search').fill('needle');
    await page.waitForSelector('#sessions[data-source="search"] li[data-sid="seed-04242"]');
    expect(await rows()).toBe(1);
    expect(await textOf(page, '#list-count')).toBe('1');
    await screenshot(page, 'search-needle');

    // a folder matches too; a search with no match says so
    await page.locator('#search').fill('nothing-is-called-this');
    await page.waitForSelector('#list-empty');
    expect(await textOf(page, '#list-empty')).toBe('No session matches.');

    // agent filter: 1,000 codex sessions, 50 a page, newest activity first
    await page.locator('#search').fill('');
    await page.locator('#filter-agent').selectOption('codex');
    await page.waitForFunction(() => document.querySelectorAll('#sessions[data-source="search"] > li.session').length === 50);
    expect(await textOf(page, '#list-count')).toBe('50+');
    const agents = await page.locator('#sessions > li.session .agent').allTextContents();
    expect(new Set(agents)).toEqual(new Set(['Codex']));
    await page.locator('#load-more').click();
    await page.waitForFunction(() => document.querySelectorAll('#sessions > li.session').length === 100);
    const sids = await page.locator('#sessions > li.session').evaluateAll((els) => els.map((el) => el.getAttribute('data-sid')));
    expect(new Set(sids).size).toBe(100);
    expect(sids[0]).toBe('seed-09990');

    // project filter with a text search: the codex sessions of /work/tools whose folder says t123
    await page.locator('#filter-project').selectOption('/work/tools');
    await page.locator('#search').fill('/work/tools/t1230');
    await page.waitForFunction(() => document.querySelectorAll('#sessions[data-source="search"] > li.session').length === 1);
    expect(await page.locator('#sessions > li.session').first().getAttribute('data-sid')).toBe('seed-01230');

    // clearing the filters goes back to the live list
    await page.locator('#filter-clear').click();
    await page.waitForSelector('#sessions[data-source="live"]');
    expect(await rows()).toBe(100);
  }, 90_000);

  it('keeps the live list live for the unfiltered view', async () => {
    await signIn(page, hub.url, hub.tokens.dashboard);
    await page.waitForFunction((count) => document.querySelector('#list-count')?.textContent === String(count), COUNT, { timeout: 30_000 });
    const ack = await runner.emitWithAck('session-start', { tag: `fresh-${Date.now()}`, flavor: 'claude', source: 'startup', metadata: { path: '/work/fresh' } });
    if (!ack.ok) throw new Error(ack.error.message);
    await page.waitForSelector(`#sessions[data-source="live"] > li.session[data-sid="${ack.session.sid}"]`);
    expect(await page.locator('#sessions > li.session').first().getAttribute('data-sid')).toBe(ack.session.sid);
    expect(await rows()).toBe(100);
  }, 60_000);
});
