/**
 * The detail view follows turn events the live map does not hold (activity added to a turn that
 * already closed), and very long texts do not push the page wider than the window.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { RunnerSocket } from '../helpers/clients.js';
import type { TestHub } from '../helpers/hub.js';
import { useDashboardPages, screenshot, signIn, waitForText } from './browser.js';

let hub: TestHub;
let runner: RunnerSocket;
let page: Page;

useDashboardPages({
  suite: (started) => ({ hub, runner } = started),
  test: (opened) => ({ page } = opened),
});

async function startSession(tag: string, metadata = { path: '/tmp/x', claudeSessionId: 'abc' }): Promise<string> {
  const ack = await runner.emitWithAck('session-start', { tag, flavor: 'claude', source: 'startup', metadata });
  if (!ack.ok) throw new Error(`session-start failed: ${ack.error.message}`);
  return ack.session.sid;
}

describe('detail view', () => {
  it('shows tool activity that lands on a turn that already closed', async () => {
    const sid = await startSession(`late-activity-${Date.now()}`);
    expect((await runner.emitWithAck('prompt-submit', { sid, prompt: 'Build it' })).ok).toBe(true);
    expect((await runner.emitWithAck('turn-stop', { sid, response: 'built' })).ok).toBe(true);
    await signIn(page, `${hub.url}/#/s/${encodeURIComponent(sid)}`, hub.tokens.dashboard);
    await waitForText(page, '.turns-panel li.turn', 'Build it');
    expect(await page.locator('.turns-panel li.turn li.tool').count()).toBe(0);

    // no open turn: within 60 s of its close, the activity goes to the closed turn (spec section 6)
    const used = await runner.emitWithAck('tool-use', { sid, tool: 'Bash', toolUseId: 'late-1', input: { command: 'make test' }, output: 'ok' });
    expect(used.ok).toBe(true);
    await waitForText(page, '.turns-panel li.turn li.tool', 'Bash');
    await waitForText(page, '.turns-panel li.turn .turn-head', '1 tool use');
    await screenshot(page, 'detail-late-activity');
  });
});

describe('long texts', () => {
  it('keeps the table and the detail view within the window', async () => {
    const long = "x".repeat(240);
    const sid = await startSession(`long-${long}`, { path: `/tmp/${'deep/'.repeat(120)}end`, claudeSessionId: 'abc' } as never);
    const archived = await fetch(`${hub.url}/api/sessions/${sid}/archive`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: `reason-${'r'.repeat(900)}` }),
    });
    expect(archived.status).toBe(200);
    await signIn(page, hub.url, hub.tokens.dashboard);
    await page.waitForSelector(`li[data-sid="${sid}"][data-state="archived"]`);
    await screenshot(page, 'table-long-texts');
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(await overflow()).toBeLessThanOrEqual(0);

    await page.locator(`li[data-sid="${sid}"] a.title`).click();
    await page.waitForSelector('#detail .summary h2');
    await page.waitForSelector('[data-fact="state"]');
    await screenshot(page, 'detail-long-texts');
    expect(await overflow()).toBeLessThanOrEqual(0);
  });
});
