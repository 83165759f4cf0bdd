/**
 * Issue 34 point 8, on a real hub fed by real hook processes (the bundled bridge) reading a Claude
 * Code transcript as the agent writes it, at 390 px: the turn's timeline shows the agent's own words
 * between its tool lines, in the order it worked, escaped, a long text clamped with "show all", the
 * closing words once (as the turn's answer).
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { hubApi, startHook, useHookEnvs } from '../people/hook-processes.js';
import { launchBrowser, signIn } from './browser.js';

let hub: TestHub;
let browser: Browser;
let page: Page;
let dir: string;
const pageErrors: string[] = [];
const hookEnv = useHookEnvs();

beforeAll(async () => {
  hub = await startTestHub();
  browser = await launchBrowser();
  dir = mkdtempSync(join(tmpdir(), 'session-hub-words-'));
});
afterAll(async () => {
  await browser?.close();
  await hub?.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await page?.context().close();
  expect(pageErrors.splice(0)).toEqual([]);
});

const FIRST = 'I will read the config first, to see where <b>sum</b> is wired.';
const LONG = `The test fails because sum subtracts. ${'Here is why, step by step, in more words than a phone shows at once. '.repeat(40)}`;
const CLOSING = 'Fixed: sum adds now.';

let lines = 0;
/** One assistant line of a Claude Code transcript (one per content block; each repeats the message's usage). */
function said(file: string, block: Record<string, unknown>): void {
  lines++;
  const line = {
    type: 'assistant',
    timestamp: new Date().toISOString(),
    requestId: `req_${lines}`,
    message: { id: `msg_${lines}`, model: 'claude-sonnet-4-5', role: 'assistant', content: [block], usage: { input_tokens: 10, output_tokens: 5 } },
  };
  appendFileSync(file, `${JSON.stringify(line)}\n`);
}

describe('the agent\'s words in the turn timeline, at 390 px', () => {
  it('text, tool, text (long, clamped), tool, then the closing answer: in that order, escaped', async () => {
    const tag = `words-${Date.now()}`;
    const transcript = join(dir, `${tag}.jsonl`);
    writeFileSync(transcript, `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'Fix sum' } })}\n`);
    const common = { session_id: tag, transcript_path: transcript, cwd: '/work/app', permission_mode: 'default' };
    // one agent machine: one spool, whose state keeps where the transcript was read to
    const env = hookEnv(hub.url, hub.tokens.runner);
    const run = async (payload: Record<string, unknown>) => expect((await startHook({ ...common, ...payload }, env).done).code).toBe(0);
    const read = { file_path: '/work/app/src/sum.ts' };
    const edit = { file_path: '/work/app/src/sum.ts', old_string: 'a - b', new_string: 'a + b' };

    await run({ hook_event_name: 'UserPromptSubmit', prompt: 'Fix sum' });
    said(transcript, { type: 'text', text: FIRST });
    said(transcript, { type: 'tool_use', id: 'toolu_read', name: 'Read', input: read });
    await run({ hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: read, tool_use_id: 'toolu_read' });
    await run({ hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: read, tool_use_id: 'toolu_read', tool_response: { ok: true } });
    // written to disk only after the tool started (Claude Code flushes its transcript on a timer):
    // read at the tool's end, still placed before it
    said(transcript, { type: 'tool_use', id: 'toolu_edit', name: 'Edit', input: edit });
    await run({ hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: edit, tool_use_id: 'toolu_edit' });
    said(transcript, { type: 'text', text: LONG });
    await run({ hook_event_name: 'PostToolUse', tool_name: 'Edit', tool_input: edit, tool_use_id: 'toolu_edit', tool_response: { ok: true } });
    said(transcript, { type: 'text', text: CLOSING });
    await run({ hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: CLOSING });

    const api = hubApi(() => ({ url: hub.url, token: hub.tokens.operator }));
    const sid = (await api.sessionOf(tag))!.sid;
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await signIn(page, hub.url, hub.tokens.operator);
    await page.goto(`${hub.url}/#/s/${sid}`);
    const steps = page.locator('li.turn ol.tools > li');
    await page.locator('li.turn .response').waitFor();
    await page.locator('li.said').nth(1).waitFor();
    // the order the agent worked in; the closing words once, as the turn's answer
    const order = await steps.evaluateAll((items) => items.map((li) => (li.classList.contains('said') ? 'said' : `tool:${li.getAttribute('data-tool')}`)));
    expect(order).toEqual(['said', 'tool:Read', 'said', 'tool:Edit']);
    const first = page.locator('li.said').first();
    expect(await first.locator('pre.text').textContent()).toBe(FIRST);
    // escaped: the agent's markup is text, not elements
    expect(await first.locator('b').count()).toBe(0);
    const long = page.locator('li.said').nth(1);
    expect(await long.locator('pre.text').getAttribute('data-clamped')).toBe('true');
    expect(await long.locator('button.show-more').textContent()).toMatch(/Show all \([\d,]+ more characters\)/);
    expect(await page.locator('li.turn .response pre.text').textContent()).toBe(CLOSING);
    expect(await page.locator('li.said', { hasText: CLOSING }).count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    await page.locator('li.turn').screenshot({ path: 'test-results/agent-words-390.png' });
    await long.locator('button.show-more').click();
    expect(await long.locator('pre.text').textContent()).toBe(LONG);
  });
});
