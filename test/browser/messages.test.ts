/**
 * Talking to an agent from a phone (docs/messages.md), in Chromium at 390 px against a real hub with
 * real `session-hub hook claude` processes (the bundled bridge) fed Claude Code's documented payloads:
 * - a session that stopped is in "Needs you"; one tap opens it with the reply box; a reply typed
 *   there is queued, shown with its state, and the agent's next Stop hook prints it as its next
 *   instruction (`decision: block`); the page then shows it delivered;
 * - Cancel while queued; the page says when a reply reaches the agent;
 * - an AskUserQuestion shows its options as buttons; tapping them makes the waiting hook print the
 *   answers in `updatedInput`.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestHub } from '../helpers/hub.js';
import { screenshot, signIn, useDashboardPages } from './browser.js';
import { useBridgeProcesses } from './bridge-processes.js';

const fixture = (path: string) => (JSON.parse(readFileSync(resolve(import.meta.dirname, '../hook/fixtures', path), 'utf8')) as { payload: Record<string, unknown> }).payload;
const STOP = fixture('attention/claude-stop.json');
const ASK = fixture('messages/claude-pre-tool-use-ask-user-question.json');

let hub: TestHub;
let page: Page;

useDashboardPages({
  suite: (started) => ({ hub } = started),
  test: (opened) => ({ page } = opened),
});

const hookProcess = useBridgeProcesses(() => hub, { waitMs: 30000 });

async function sidOf(tag: string): Promise<string> {
  for (let tries = 0; tries < 300; tries++) {
    const response = await fetch(`${hub.url}/api/sessions?limit=500`, { headers: { authorization: `Bearer ${hub.tokens.operator}` } });
    const sid = ((await response.json()) as { sessions: { sid: string; tag: string }[] }).sessions.find((s) => s.tag === tag)?.sid;
    if (sid) return sid;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no session ${tag}`);
}

async function phone(): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, hub.url, hub.tokens.operator);
}

const noSideScroll = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);

describe('a reply from the page reaches the agent at its Stop', () => {
  it('one tap from Ready to the reply box; sent, queued, then printed by the Stop hook as the next instruction; the page shows it delivered', async () => {
    const tag = `browser-reply-${Date.now()}`;
    expect((await hookProcess({ ...STOP, session_id: tag, stop_hook_active: false })).stdout).toBe('');
    const sid = await sidOf(tag);
    await phone();

    // stopped: ready (it waits on nobody), one tap from the list's top
    const row = page.locator(`#ready li[data-sid="${sid}"]`);
    await row.waitFor();
    await row.locator('.attention-message').click();
    const box = page.locator('#session-messages textarea');
    await box.waitFor();
    // the reach arrives with the panel's GET …/messages, a moment after the box: no waiter waits, so the next stop
    await page.locator('#session-messages .delivery[data-delivery="next-stop"]').waitFor();
    expect(await page.locator('#session-messages .delivery').getAttribute('data-delivery')).toBe('next-stop');
    await box.fill('Yes, update the snapshots too.');
    await page.locator('#session-messages button.send').click();
    await page.locator('#session-messages li.message[data-state="queued"]').waitFor();
    expect(await box.inputValue()).toBe('');
    expect(await noSideScroll()).toBe(true);
    await screenshot(page, 'messages-queued-390');

    const stop = await hookProcess({ ...STOP, session_id: tag, stop_hook_active: false });
    expect(stop.code).toBe(0);
    expect(JSON.parse(stop.stdout)).toEqual({ decision: 'block', reason: 'Yes, update the snapshots too.' });
    await page.locator('#session-messages li.message[data-state="delivered"]').waitFor();
    expect((await page.locator('#session-messages li.message .message-state').textContent())?.replace(/\s+/g, ' ')).toMatch(/delivered at its Stop/);
    // which process took it (issue 33): the hook process that printed it, in the tooltip; the line
    // itself says where it went, not a pid (issue 46)
    expect(await page.locator('#session-messages li.message .message-state strong').getAttribute('title')).toMatch(/^taken by hook pid \d+ on \S+/);
    expect(await page.locator('#session-messages li.message .message-state').textContent()).not.toContain('pid');
  });

  it('Cancel while queued: the message ends cancelled and the next Stop prints nothing', async () => {
    const tag = `browser-cancel-${Date.now()}`;
    await hookProcess({ ...STOP, session_id: tag, stop_hook_active: false });
    const sid = await sidOf(tag);
    await phone();
    await page.goto(`${hub.url}/#/s/${encodeURIComponent(sid)}`);
    await page.locator('#session-messages textarea').fill('never mind');
    await page.locator('#session-messages button.send').click();
    await page.locator('#session-messages li.message[data-state="queued"] button.cancel').click();
    await page.locator('#session-messages li.message[data-state="cancelled"]').waitFor();
    expect((await hookProcess({ ...STOP, session_id: tag, stop_hook_active: false })).stdout).toBe('');
  });

  it('says "now" only while a waking hook waits on the hub now: a stop alone says "next stop"; a waiter starting turns it to "now"', async () => {
    const tag = `browser-wake-${Date.now()}`;
    await hookProcess({ ...STOP, session_id: tag, stop_hook_active: false });
    const sid = await sidOf(tag);
    await phone();
    await page.goto(`${hub.url}/#/s/${encodeURIComponent(sid)}`);
    const delivery = page.locator('#session-messages .delivery');
    // stopped, but no waiter waits (its agent killed, or a hub restart it has not come back from): never "now"
    await page.locator('#session-messages .delivery[data-delivery="next-stop"]').waitFor();
    expect(await delivery.textContent()).toBe('A reply reaches the agent at its next stop: no hook of it waits for one now.');

    const waiter = hookProcess({ ...STOP, session_id: tag, stop_hook_active: false }, ['--wake']);
    await page.locator('#session-messages .delivery[data-delivery="now"]').waitFor({ timeout: 15_000 });
    expect(await delivery.textContent()).toMatch(/reaches the agent now \(its hook waits for one until \d\d:\d\d/);
    await screenshot(page, 'messages-wake-over-390');

    // the reply wakes it (the waiter takes it and ends)
    await page.locator('#session-messages textarea').fill('carry on');
    await page.locator('#session-messages button.send').click();
    expect((await waiter).code).toBe(2);
  });
});

describe('an agent question answered on the page', () => {
  it('AskUserQuestion options are buttons; tapping them sends the answers the waiting hook prints', async () => {
    const tag = `browser-ask-${Date.now()}`;
    const waiting = hookProcess({ ...ASK, session_id: tag }, ['--ask']);
    const sid = await sidOf(tag);
    await phone();
    const row = page.locator(`#needs-you li[data-sid="${sid}"]`);
    await row.locator('fieldset.question').first().waitFor();
    expect(await row.getAttribute('data-kind')).toBe('question');
    await row.locator('fieldset[data-question="Should I also update the snapshots?"] button[data-option="Yes"]').click();
    await row.locator('fieldset[data-question="Which suites should run?"] button[data-option="unit"]').click();
    await row.locator('fieldset[data-question="Which suites should run?"] button[data-option="postgres"]').click();
    expect(await noSideScroll()).toBe(true);
    await screenshot(page, 'messages-question-390');
    await row.locator('button[data-decision="answer"]').click();
    const printed = JSON.parse((await waiting).stdout) as { hookSpecificOutput: { updatedInput: { answers: Record<string, string> } } };
    expect(printed.hookSpecificOutput.updatedInput.answers).toEqual({ 'Should I also update the snapshots?': 'Yes', 'Which suites should run?': 'unit, postgres' });
  });
});
