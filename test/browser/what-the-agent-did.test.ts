/**
 * Issue 34 point 8, on a real hub fed by real hook processes (the bundled bridge), at 390 px: a
 * file edit shows the change it made as a diff in the turn's timeline (Edit's old/new strings, a
 * Write's content), and a tool line shows the tool's own time and, apart, how long it waited for a
 * person's approval and who decided — not the offset from the turn's start.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mintToken } from '../../hub/services/tokens.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { hubApi, startHook, useHookEnvs } from '../people/hook-processes.js';
import { launchBrowser, signIn } from './browser.js';

let hub: TestHub;
let browser: Browser;
let page: Page;
let tokens: { runner: string; operator: string };
const pageErrors: string[] = [];
const hookEnv = useHookEnvs();

beforeAll(async () => {
  // stored tokens, so the operator's token carries a label
  hub = await startTestHub({ config: { tokens: '' } });
  const now = Date.now();
  tokens = {
    runner: (await mintToken(hub.deps.store, { role: 'runner', namespace: 'default', source: 'cli', now })).token,
    operator: (await mintToken(hub.deps.store, { role: 'operator', namespace: 'default', source: 'cli', now, label: 'alice phone' })).token,
  };
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await hub?.close();
});
afterEach(async () => {
  await page?.context().close();
  expect(pageErrors.splice(0)).toEqual([]);
});

const EDIT_INPUT = { file_path: '/work/app/src/sum.ts', old_string: 'export function sum(a, b) {\n  return a - b;\n}', new_string: 'export function sum(a, b) {\n  return a + b;\n}' };
const WRITE_INPUT = { file_path: '/work/app/CHANGELOG.md', content: '# Changelog\n\n- sum adds\n' };

describe('what the agent did, at 390 px', () => {
  it('an Edit as a diff, its own time apart from 1.5 s waiting for an approval and who allowed it; a Write as added lines', async () => {
    const tag = `did-${Date.now()}`;
    const common = { session_id: tag, transcript_path: '/tmp/none.jsonl', cwd: '/work/app', permission_mode: 'default' };
    const run = async (payload: Record<string, unknown>) => expect((await startHook({ ...common, ...payload }, hookEnv(hub.url, tokens.runner)).done).code).toBe(0);
    await run({ hook_event_name: 'UserPromptSubmit', prompt: 'Fix sum and add a changelog' });
    await run({ hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: EDIT_INPUT, tool_use_id: 'toolu_edit' });
    // Claude Code's PermissionRequest: no tool_use_id; the bridge waits for the page's decision
    const asking = startHook({ ...common, hook_event_name: 'PermissionRequest', tool_name: 'Edit', tool_input: EDIT_INPUT }, { ...hookEnv(hub.url, tokens.runner), SESSION_HUB_HOOK_WAIT_MS: '30000' });
    const api = hubApi(() => ({ url: hub.url, token: tokens.operator }));
    const { sid, approvals } = await api.approvalsWhen(tag, (list) => list.some((a) => a.status === 'pending'), 'a pending approval');
    await new Promise((r) => setTimeout(r, 1500));
    expect((await api.decide(sid, approvals[0]!.approvalId, { decision: 'allow' })).status).toBe(200);
    expect((await asking.done).stdout).toContain('"allow"');
    await run({ hook_event_name: 'PostToolUse', tool_name: 'Edit', tool_input: EDIT_INPUT, tool_use_id: 'toolu_edit', tool_response: { filePath: EDIT_INPUT.file_path } });
    await run({ hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: WRITE_INPUT, tool_use_id: 'toolu_write' });
    await run({ hook_event_name: 'PostToolUse', tool_name: 'Write', tool_input: WRITE_INPUT, tool_use_id: 'toolu_write', tool_response: { filePath: WRITE_INPUT.file_path } });

    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await signIn(page, hub.url, tokens.operator);
    await page.goto(`${hub.url}/#/s/${sid}`);
    const edit = page.locator('li.tool[data-tool="Edit"]');
    await edit.locator('pre.diff').waitFor();
    expect(await edit.locator('pre.diff > span').allTextContents()).toEqual([' export function sum(a, b) {', '-  return a - b;', '+  return a + b;', ' }']);
    expect(await edit.locator('pre.diff .diff-del').allTextContents()).toEqual(['-  return a - b;']);

    const waited = edit.locator('.tool-waited');
    await waited.waitFor();
    expect(await waited.textContent()).toMatch(/^\s*waited \d+ s for approval: allowed by alice phone\s*$/);
    const waitMs = Number(await waited.getAttribute('data-wait-ms'));
    expect(waitMs).toBeGreaterThanOrEqual(1400);
    // the tool's own time leaves the person's wait out: from the decision to its PostToolUse
    const ownMs = Number(await edit.locator('.tool-took').getAttribute('data-own-ms'));
    expect(ownMs).toBeLessThan(waitMs);
    expect(await edit.locator('.tool-took').textContent()).toMatch(/^\d+ (ms|s)$/);

    const write = page.locator('li.tool[data-tool="Write"]');
    expect(await write.locator('pre.diff .diff-add').allTextContents()).toEqual(['+# Changelog', '+', '+- sum adds']);
    expect(await write.locator('.tool-waited').count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    await page.screenshot({ path: '/tmp/page-day-did-390.png', fullPage: true });
  });

  it('a tool call that waits for approval reads "waiting for approval", not "running … so far" (issue 46)', async () => {
    const tag = `wait-${Date.now()}`;
    const common = { session_id: tag, transcript_path: '/tmp/none.jsonl', cwd: '/work/app', permission_mode: 'default' };
    const run = async (payload: Record<string, unknown>) => expect((await startHook({ ...common, ...payload }, hookEnv(hub.url, tokens.runner)).done).code).toBe(0);
    await run({ hook_event_name: 'UserPromptSubmit', prompt: 'Fix sum' });
    await run({ hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: EDIT_INPUT, tool_use_id: 'toolu_wait' });
    const asking = startHook({ ...common, hook_event_name: 'PermissionRequest', tool_name: 'Edit', tool_input: EDIT_INPUT }, { ...hookEnv(hub.url, tokens.runner), SESSION_HUB_HOOK_WAIT_MS: '30000' });
    const api = hubApi(() => ({ url: hub.url, token: tokens.operator }));
    const { sid, approvals } = await api.approvalsWhen(tag, (list) => list.some((a) => a.status === 'pending'), 'a pending approval');

    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await signIn(page, hub.url, tokens.operator);
    await page.goto(`${hub.url}/#/s/${sid}`);
    const edit = page.locator('li.tool[data-tool="Edit"]');
    await edit.waitFor();
    expect(await edit.getAttribute('data-status')).toBe('waiting');
    expect(await edit.locator('.tool-status').textContent()).toBe('waiting for approval');
    expect(await edit.locator('.tool-took').textContent()).toBe('');

    expect((await api.decide(sid, approvals[0]!.approvalId, { decision: 'deny', message: 'not now' })).status).toBe(200);
    expect((await asking.done).stdout).toContain('"deny"');
    await page.locator('li.tool[data-tool="Edit"][data-status="denied"]').waitFor();
  });

  it('a 200,000-character message shows its beginning and "show all": the phone page stays short', async () => {
    const tag = `long-${Date.now()}`;
    const started = startHook({ session_id: tag, transcript_path: '/tmp/none.jsonl', cwd: '/work/app', hook_event_name: 'UserPromptSubmit', prompt: 'Wait for notes' }, hookEnv(hub.url, tokens.runner));
    expect((await started.done).code).toBe(0);
    const api = hubApi(() => ({ url: hub.url, token: tokens.operator }));
    const sid = (await api.sessionOf(tag))!.sid;
    const text = `Notes: ${'the quick brown fox jumps over the lazy dog '.repeat(4600)}`.slice(0, 200_000);
    const posted = await fetch(`${hub.url}/api/sessions/${sid}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.operator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
    });
    expect(posted.status).toBe(201);

    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await signIn(page, hub.url, tokens.operator);
    await page.goto(`${hub.url}/#/s/${sid}`);
    const message = page.locator('#session-messages li.message');
    await message.locator('.message-text[data-clamped="true"]').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThan(6000);
    expect(await message.locator('button.show-more').textContent()).toMatch(/Show all \(199,400 more characters\)/);
    await page.screenshot({ path: '/tmp/page-day-long-390.png', fullPage: true });
    await message.locator('button.show-more').click();
    await message.locator('.message-text[data-clamped="false"]').waitFor();
    expect((await message.locator('.message-text').textContent())!.length).toBe(200_000);
  });
});
