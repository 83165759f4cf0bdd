/**
 * The session page at 390 px (issue 46, "The session page"): what a person wants first is on the
 * first screen: approvals decided before the page opened fold into one line, what the agent last
 * said comes before the turns, an ended session a machine can continue has one text box (Continue's)
 * with Resume and Repair under "Advanced", the whole list card opens its session, the bar is one row
 * with "Needs you" first, and a machine's card shows its sessions' states. A real hub, a real
 * Socket.IO runner and machine peer, Chromium.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { RunnerSocket } from '../helpers/clients.js';
import { connectRunner, startSession, waitFor } from '../helpers/clients.js';
import type { TestHub } from '../helpers/hub.js';
import { connectMachine } from '../machines/machine-peer.js';
import { screenshot, signIn, useDashboardPages, waitForText } from './browser.js';

let hub: TestHub;
let page: Page;

useDashboardPages({
  suite: (started) => ({ hub } = started),
  test: (opened) => ({ page } = opened),
});

const decide = (sid: string, approvalId: string, decision: 'allow' | 'deny') =>
  fetch(`${hub.url}/api/sessions/${sid}/approvals/${approvalId}`, { method: 'POST', headers: { authorization: `Bearer ${hub.tokens.operator}`, 'content-type': 'application/json' }, body: JSON.stringify({ decision }) });
const pendingIds = async (sid: string) =>
  ((await (await fetch(`${hub.url}/api/sessions/${sid}/approvals`, { headers: { authorization: `Bearer ${hub.tokens.operator}` } })).json()) as { approvals: { approvalId: string; status: string }[] }).approvals
    .filter((a) => a.status === 'pending')
    .map((a) => a.approvalId);

/** Asks a person about `tool` (the runner's approval-ask), without waiting for the answer. */
function ask(runner: RunnerSocket, sid: string, command: string): void {
  void runner.emitWithAck('approval-ask', { sid, tool: 'Bash', toolUseId: randomUUID(), input: { command }, cwd: '/work/project', waitMs: 60_000 }).catch(() => undefined);
}

const top = async (selector: string) => (await page.locator(selector).first().boundingBox())!.y;

describe('the session page on a 390 px phone', () => {
  it('folds approvals decided before the page opened, keeps the waiting one first, and shows the agent\'s last words above the turns', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner, { metadata: { path: '/work/project', host: 'laptop', claudeSessionId: randomUUID() } });
    const sid = session.sid;
    expect((await runner.emitWithAck('prompt-submit', { sid, prompt: 'clean the build', promptId: randomUUID() })).ok).toBe(true);
    for (const command of ['ls', 'make clean', 'rm -rf build']) {
      ask(runner, sid, command);
      let ids: string[] = [];
      await waitFor(async () => (ids = await pendingIds(sid)).length === 1, 5000, 'the approval is pending');
      expect((await decide(sid, ids[0]!, command.startsWith('rm') ? 'deny' : 'allow')).status).toBe(200);
    }
    expect((await runner.emitWithAck('turn-stop', { sid, response: 'The build folder is clean; I did not delete it (denied).' })).ok).toBe(true);
    ask(runner, sid, 'git push');

    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, hub.url, hub.tokens.operator);
    await page.goto(`${hub.url}/#/s/${encodeURIComponent(sid)}`);
    await page.locator('#session-approvals [data-status="pending"]').waitFor();
    // the three decided ones are one folded line; the waiting one is a card, in the first screen
    await waitForText(page, '#session-approvals .decided-fold summary', '3 decided');
    expect(await page.locator('#session-approvals .decided-fold').getAttribute('open')).toBeNull();
    expect(await page.locator('#session-approvals .decided-fold .approval').first().isVisible()).toBe(false);
    expect(await top('#session-approvals [data-status="pending"] button[data-decision="allow"]')).toBeLessThan(844);
    // what it last said, above its turns and in the first screen
    await waitForText(page, '#last-words', 'The build folder is clean');
    expect(await top('#last-words')).toBeLessThan(await top('.turns-panel'));
    expect(await top('#last-words')).toBeLessThan(844);
    await screenshot(page, 'session-first-screen-390');
    await page.locator('#session-approvals .decided-fold summary').click();
    expect(await page.locator('#session-approvals .decided-fold .approval').count()).toBe(3);
    runner.disconnect();
  });

  it('the bar is one row with "Needs you" first; it opens the one session that waits', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner, { metadata: { path: '/work/bar', host: 'laptop', claudeSessionId: randomUUID() } });
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, hub.url, hub.tokens.operator);
    ask(runner, session.sid, 'npm publish');
    await page.locator('#nav-needs-you:not([data-count="0"])').waitFor();
    const bar = (await page.locator('header.bar').boundingBox())!;
    expect(bar.height).toBeLessThan(60);
    const first = await page.locator('header.bar a, header.bar button').evaluateAll((els) => els.filter((el) => (el as HTMLElement).offsetParent !== null).map((el) => el.id));
    expect(first[0]).toBe('nav-needs-you');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const count = Number(await page.locator('#nav-needs-you').getAttribute('data-count'));
    if (count === 1) {
      await page.locator('#nav-needs-you').click();
      await page.waitForURL(new RegExp(`#/s/${session.sid}`));
    }
    // who is signed in and sign-out are behind the menu
    expect(await page.locator('#signout').isVisible()).toBe(false);
    await page.locator('#bar-menu').click();
    expect(await page.locator('#signout').isVisible()).toBe(true);
    runner.disconnect();
  });

  it('a tap anywhere on a list card opens its session', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner, { metadata: { path: '/work/tap', host: 'laptop', claudeSessionId: randomUUID() } });
    expect((await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'tap me anywhere', promptId: randomUUID() })).ok).toBe(true);
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, hub.url, hub.tokens.operator);
    const card = page.locator(`li.session[data-sid="${session.sid}"]`);
    await card.waitFor();
    // not the title link: the card's lower part
    const box = (await card.boundingBox())!;
    await page.mouse.click(box.x + box.width - 20, box.y + box.height - 8);
    await page.waitForURL(new RegExp(`#/s/${session.sid}`));
    runner.disconnect();
  });

  it('an ended session a machine can continue has one text box, Continue\'s; Resume and Repair wait under Advanced; the machine card shows its sessions\' states', async () => {
    const peer = await connectMachine(hub.url, hub.tokens.machine, { name: 'one-box laptop' });
    const path = peer.register.roots[0]!;
    const tag = randomUUID();
    const hook = (name: string, extra: Record<string, unknown> = {}) =>
      fetch(`${hub.url}/api/hooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${hub.tokens.agent}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events: [{ id: randomUUID(), flavor: 'claude', firedAt: Date.now(), seq: 0, host: peer.register.host, machineId: peer.register.machineId, payload: { hook_event_name: name, session_id: tag, cwd: path, transcript_path: '/nowhere.jsonl', ...extra } }] }),
      });
    expect((await hook('SessionStart', { source: 'startup' })).status).toBe(200);
    expect((await hook('SessionEnd', { reason: 'exit' })).status).toBe(200);
    const listed = (await (await fetch(`${hub.url}/api/sessions`, { headers: { authorization: `Bearer ${hub.tokens.operator}` } })).json()) as { sessions: { sid: string; tag: string; activity: string }[] };
    const session = listed.sessions.find((s) => s.tag === tag)!;
    expect(session.activity).toBe('ended');

    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, hub.url, hub.tokens.admin);
    await page.goto(`${hub.url}/#/s/${encodeURIComponent(session.sid)}`);
    await page.locator('#continue-where[data-place="ok"]').waitFor({ timeout: 10_000 });
    expect(await page.locator('#detail textarea').count()).toBe(1);
    expect(await page.locator('#detail textarea').getAttribute('id')).toBe('continue-prompt');
    expect(await page.locator('#advanced').getAttribute('open')).toBeNull();
    expect(await page.locator('#action-resume').isVisible()).toBe(false);
    await page.locator('#advanced summary').click();
    expect(await page.locator('#action-resume').isVisible()).toBe(true);
    expect(await page.locator('#action-repair').isVisible()).toBe(true);

    await page.locator('#nav-machines').click();
    const item = page.locator(`li.machine[data-machine="${peer.register.machineId}"] .machine-sessions li[data-sid="${session.sid}"]`);
    await item.waitFor();
    expect(await item.textContent()).toContain('Ended');
  });
});
