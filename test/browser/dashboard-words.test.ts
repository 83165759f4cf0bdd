/**
 * What the page says (issue 17), in Chromium at desktop width and at 390 px: a hook-driven Claude Code
 * session made by real hook processes (`session-hub hook claude` fed the payload fixtures of
 * test/hook/fixtures) and SDK sessions (a runner socket). The title, the activity through working,
 * idle, waiting, ended and lost, the tool summaries, the closing message, the order by last activity, words in
 * place of codes, and no sideways scrolling. The fixture fails a test on any page error or CSP refusal.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../shared/protocol/json.js';
import { connectRunner, type RunnerSocket } from '../helpers/clients.js';
import type { TestHub } from '../helpers/hub.js';
import { fixture, removeSpool, sendHooks } from '../hook/run-cli.js';
import { useDashboardPages, screenshot, signIn, textOf, waitForText } from './browser.js';

let hub: TestHub;
let browser: Browser;
let runner: RunnerSocket;
let desktop: Page;
let spoolDir: string;

useDashboardPages({
  suite: (started) => ({ hub, browser, runner } = started),
  test: (opened) => ({ page: desktop } = opened),
});
beforeAll(() => {
  spoolDir = mkdtempSync(join(tmpdir(), 'session-hub-page-spool-'));
});
afterAll(() => removeSpool(spoolDir));

const CLAUDE = fixture('claude-session.json');
/** Payloads by hook name, in fixture order: SessionStart, UserPromptSubmit, PostToolUse ×3, Stop, …, SessionEnd. */
const byHook = (name: string) => CLAUDE.filter((p) => p.hook_event_name === name);

/** Runs real hook processes for one agent session (its own session_id). */
function hookSession(sessionId: string) {
  const env = { SESSION_HUB_URL: hub.url, SESSION_HUB_TOKEN: hub.tokens.runner, SESSION_HUB_SPOOL_DIR: spoolDir };
  return async (...payloads: Record<string, unknown>[]) => {
    for (const result of await sendHooks('claude', payloads.map((p) => ({ ...p, session_id: sessionId })), env)) {
      expect(result, result.stderr).toMatchObject({ code: 0 });
    }
  };
}

const row = (sid: string) => `#sessions li[data-sid="${sid}"]`;

async function sidOfTag(tag: string): Promise<string> {
  const res = await fetch(`${hub.url}/api/sessions?limit=500`, { headers: { authorization: `Bearer ${hub.tokens.dashboard}` } });
  const { sessions } = (await res.json()) as { sessions: { sid: string; tag: string }[] };
  const sid = sessions.find((s) => s.tag === tag)?.sid;
  if (!sid) throw new Error(`no session with tag ${tag}`);
  return sid;
}

async function noSidewaysScroll(page: Page): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
}

/** No code the dictionary knows is shown as text (it may sit in a tooltip). */
async function noCodesAsText(page: Page): Promise<void> {
  const text = await page.evaluate(() => document.body.innerText);
  for (const code of ['prompt_input_exit', 'run_in_progress', 'no_token', 'runner_lost', 'last_run_', 'superseded_by_new_run', 'startup']) {
    expect(text, `"${code}" shown as text`).not.toContain(code);
  }
}

/** The whole walk, on one page of the given width. */
async function walkThrough(page: Page, label: string): Promise<void> {
  const unique = `${label}-${Date.now()}`;
  const agentId = `${unique}-3f1c9a52-claude`;
  const hooks = hookSession(agentId);
  await signIn(page, hub.url, hub.tokens.dashboard);

  // SessionStart + UserPromptSubmit: named by its first prompt, at work, its project the cwd's last part
  await hooks(byHook('SessionStart')[0]!, byHook('UserPromptSubmit')[0]!);
  const sid = await sidOfTag(agentId);
  await page.waitForSelector(`${row(sid)}[data-activity="working"]`);
  expect(await textOf(page, `${row(sid)} a.title`)).toBe('Add a --verbose flag to the CLI');
  expect(await textOf(page, `${row(sid)} .project`)).toBe('app');
  expect(await textOf(page, `${row(sid)} .agent`)).toBe('Claude Code');
  expect(await textOf(page, `${row(sid)} .activity-badge`)).toBe('Working');
  // the title is the prompt: the row does not say it twice
  expect(await page.locator(`${row(sid)} .prompt`).count()).toBe(0);
  expect(await textOf(page, `${row(sid)} time.ago`)).toMatch(/just now|\d+ s ago/);

  // an SDK session with a title, started later: listed by its title, above the hook session
  const sdk = await connectRunner(hub.url, hub.tokens.runner);
  const started = await sdk.emitWithAck('session-start', {
    tag: `sdk-${unique}`, flavor: 'claude', source: 'startup', metadata: { path: '/srv/parser-kit', title: 'Fix the tests', claudeSessionId: `c-${unique}` },
  });
  if (!started.ok) throw new Error(started.error.message);
  const sdkSid = started.session.sid;
  await page.waitForSelector(`${row(sdkSid)}[data-activity="idle"]`);
  expect(await textOf(page, `${row(sdkSid)} a.title`)).toBe('Fix the tests');
  expect(await textOf(page, `${row(sdkSid)} .activity-badge`)).toBe('Waiting for a prompt');
  expect(await page.locator(`${row(sdkSid)} .prompt`).count()).toBe(0);
  const order = () => page.$$eval('#sessions li.session', (rows) => rows.map((r) => r.getAttribute('data-sid')));
  const before = await order();
  expect(before.indexOf(sdkSid)).toBeLessThan(before.indexOf(sid));

  // tool use through the hooks: the hook session moves back to the top (ordered by last activity)
  await hooks(...byHook('PostToolUse'));
  await page.waitForFunction(([a, b]) => {
    const sids = Array.from(document.querySelectorAll('#sessions li.session')).map((r) => r.getAttribute('data-sid'));
    return sids.indexOf(a!) < sids.indexOf(b!);
  }, [sid, sdkSid] as const);
  await screenshot(page, `words-list-${label}`);
  await noSidewaysScroll(page);

  // the detail: the turn as a timeline with one line per tool
  await page.click(`${row(sid)} a.title`);
  await page.waitForSelector('.turns-panel li.turn[data-status="open"] li.tool >> nth=2');
  expect(await textOf(page, '.detail-title h2')).toBe('Add a --verbose flag to the CLI');
  const tools = await page.$$eval('li.turn li.tool', (items) =>
    items.map((li) => [li.querySelector('.tool-name')?.textContent, li.querySelector('.tool-summary')?.textContent, li.getAttribute('data-status')]),
  );
  expect(tools).toEqual([
    ['Read', '/work/app/src/cli.ts', 'done'],
    ['Edit', '/work/app/src/cli.ts', 'done'],
    ['Bash', 'npm test', 'done'],
  ]);
  expect(await textOf(page, '.copy-id[data-id="tag"] code')).toBe(agentId);
  expect(await textOf(page, '.copy-id[data-id="sid"] code')).toBe(sid);

  // Stop: the turn closes with the agent's last message, and the session waits for its user
  await hooks(byHook('Stop')[0]!);
  await page.waitForSelector('li.turn[data-status="completed"] .response');
  expect(await textOf(page, 'li.turn .response')).toBe('Added --verbose; tests pass.');
  expect(await textOf(page, 'li.turn .turn-status')).toBe('Done');
  expect(await textOf(page, 'li.turn .turn-duration')).toMatch(/^\d+ (ms|s)$/);
  // Claude Code's Stop also says the turn is done (attention `done`): ready for a prompt, waiting on nobody (issue 34)
  await page.waitForSelector('.detail-title .activity-badge[data-activity="idle"]');
  await waitForText(page, '#detail .attention-line', 'finished');
  await screenshot(page, `words-detail-${label}`);
  await noSidewaysScroll(page);

  // SessionEnd: ended, in words; the code is in the tooltip only
  await hooks(byHook('SessionEnd')[0]!);
  await page.waitForSelector('.detail-title .activity-badge[data-activity="ended"]');
  await waitForText(page, '[data-fact="state"]', 'Ended: the user left the agent');
  expect(await page.getAttribute('[data-fact="state"] .word', 'title')).toBe('ended · prompt_input_exit');
  expect(await textOf(page, '[data-fact="last-run"]')).toBe('The last run finished normally: the user left the agent');
  await noCodesAsText(page);

  // the SDK session: a turn with tools of every kind, then its runner goes away without a word
  await sdk.emitWithAck('prompt-submit', { sid: sdkSid, prompt: 'Find out why the tokenizer tests fail' });
  const uses: [string, JsonObject][] = [
    ['Grep', { pattern: 'splitTokens\\(', path: 'src' }],
    ['Glob', { pattern: 'src/**/*.test.ts' }],
    ['WebFetch', { url: 'https://example.com/spec', prompt: 'white space?' }],
    ['Task', { description: 'Check the other callers', prompt: '…' }],
    ['mcp__db__query', { table: 'runs', limit: 5 }],
  ];
  for (const [tool, input] of uses) expect((await sdk.emitWithAck('tool-use', { sid: sdkSid, tool, input, output: 'ok' })).ok).toBe(true);
  await page.click('.back a');
  await page.waitForSelector(`${row(sdkSid)}[data-activity="working"]`);
  expect(await textOf(page, `${row(sdkSid)} .prompt`)).toBe('Find out why the tokenizer tests fail');
  await page.click(`${row(sdkSid)} a.title`);
  await page.waitForSelector('li.turn li.tool >> nth=4');
  expect(await page.$$eval('li.turn li.tool .tool-summary', (els) => els.map((e) => e.textContent))).toEqual([
    'splitTokens\\(',
    'src/**/*.test.ts',
    'https://example.com/spec',
    'Check the other callers',
    'table=runs limit=5',
  ]);
  expect(await textOf(page, '[data-fact="resume"]')).toBe("Can't resume safely: the agent is still running");
  sdk.disconnect();
  await page.waitForSelector('.detail-title .activity-badge[data-activity="lost"]');
  expect(await textOf(page, '.detail-title .activity-badge')).toBe('Lost contact');
  await noCodesAsText(page);
  await noSidewaysScroll(page);
}

describe('what the page says', () => {
  it('at desktop width', { timeout: 90_000 }, async () => {
    await walkThrough(desktop, 'desktop');
  });

  it('at 390 px, with no sideways scrolling', { timeout: 90_000 }, async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await phone.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (m) => /Content Security Policy|Refused to/i.test(m.text()) && errors.push(m.text()));
    try {
      await walkThrough(page, 'phone');
    } finally {
      await phone.close();
    }
    expect(errors).toEqual([]);
  });

  it('explains each admin action and asks before doing it, naming what will change', async () => {
    const started = await runner.emitWithAck('session-start', {
      tag: `actions-${Date.now()}`, flavor: 'claude', source: 'startup', metadata: { path: '/srv/site', title: 'Ship the site', claudeSessionId: 'c-site' },
    });
    if (!started.ok) throw new Error(started.error.message);
    const sid = started.session.sid;
    await signIn(desktop, `${hub.url}/#/s/${encodeURIComponent(sid)}`, hub.tokens.admin);
    await desktop.waitForSelector('#action-repair');
    const help = await desktop.$$eval('.action-help', (els) => els.map((e) => e.textContent ?? ''));
    expect(help[0]).toContain('Resume gives you what Claude Code needs to continue this session');
    // Repair sits with Resume under "Advanced" (open here: no machine can continue this session)
    expect(help[1]).toContain('Repair brings back the id Claude Code needs to resume it');
    expect(help[2]).toContain('Archive puts the session away with your reason');

    // nothing happens before the confirmation, which names the session and what changes
    await desktop.fill('#archive-reason', 'shipped');
    await desktop.click('#action-archive');
    expect(await textOf(desktop, '#confirm-text')).toBe(
      'Archive “Ship the site” with the reason “shipped”: its state becomes Archived, its running agent’s run ends as cancelled and a safe resume is no longer offered. The metadata is kept.',
    );
    await desktop.click('#confirm-no');
    expect(await desktop.locator('#confirm-text').count()).toBe(0);
    expect(await textOf(desktop, '[data-fact="state"]')).toBe('Running');

    await desktop.click('#action-resume');
    expect(await textOf(desktop, '#confirm-text')).toContain('Nothing in the session changes.');
    await desktop.click('#confirm-yes');
    await desktop.waitForSelector('.action-result.error');
    expect(await textOf(desktop, '.action-result')).toContain('force');

    await desktop.click('#action-archive');
    await desktop.click('#confirm-yes');
    await waitForText(desktop, '.action-result.ok', 'Archived: shipped');
    await waitForText(desktop, '[data-fact="state"]', 'Archived: shipped');
    await desktop.waitForSelector('.detail-title .activity-badge[data-activity="ended"]');
  });
});

describe('the sign-in card', () => {
  it('asks for a dashboard, operator or admin token, keeps it for the tab only unless remembered', async () => {
    await desktop.goto(hub.url);
    expect(await textOf(desktop, 'label[for="token-input"]')).toBe('Dashboard, operator or admin token');
    await signIn(desktop, hub.url, hub.tokens.dashboard);
    expect(await desktop.evaluate(() => [sessionStorage.getItem('sessionHub.token'), localStorage.getItem('sessionHub.token')])).toEqual([hub.tokens.dashboard, null]);

    await desktop.click('#signout');
    await desktop.fill('#token-input', hub.tokens.dashboard);
    await desktop.check('#remember');
    await desktop.click('#signin-form button[type=submit]');
    await desktop.waitForSelector('#conn[data-state="live"]');
    expect(await desktop.evaluate(() => [sessionStorage.getItem('sessionHub.token'), localStorage.getItem('sessionHub.token')])).toEqual([null, hub.tokens.dashboard]);
    await desktop.click('#signout');
    expect(await desktop.evaluate(() => localStorage.getItem('sessionHub.token'))).toBeNull();
  });
});
