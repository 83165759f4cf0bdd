/**
 * The work on a phone (issue 47, spec section 15), Chromium at 390 px against a real hub, a real
 * runner and the real Claude Code CLI in a real repository with a bare remote: "Changes (2)" with
 * each file's counts, a diff that wraps (the page never scrolls sideways), the files, and a commit
 * pushed from the page; a dashboard token sees the changes but no Commit.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { startAnthropicServer, type ScriptedTurn } from '../agents/helpers/anthropic-server.js';
import type { ModelServer } from '../agents/helpers/model-server.js';
import { waitFor } from '../helpers/clients.js';
import { httpCall } from '../helpers/http-call.js';
import { TEST_TOKENS } from '../helpers/tokens.js';
import { claudeHome, type ClaudeHome } from '../runner/helpers/claude-home.js';
import { startHubAndRunner, type HubAndRunner } from '../runner/helpers/hub-and-runner.js';
import { launchBrowser, SCREENSHOT_DIR, signIn, waitForText } from './browser.js';

let model: ModelServer;
let home: ClaudeHome;
let parts: HubAndRunner;
let browser: Browser;
let repo: string;
let remote: string;
let sid: string;
const LONG_LINE = `export const long = '${'a very long line that a phone must wrap '.repeat(8)}';`;
const script: ScriptedTurn = { tools: [], finalText: 'Wrote hello.ts.' };

const call = (method: string, path: string, body?: unknown) => httpCall(parts.hub.url, method, path, body === undefined ? {} : { body });
const gitIn = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, HOME: home.home } }).trim();

async function phone(token: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await signIn(page, parts.hub.url, token);
  await page.goto(`${parts.hub.url}/#/s/${encodeURIComponent(sid)}`);
  return page;
}

/** The page is no wider than the phone: nothing scrolls sideways. */
const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

beforeAll(async () => {
  model = await startAnthropicServer(script);
  home = claudeHome(model.url, ['project']);
  repo = home.dir;
  remote = join(home.root, 'remote.git');
  writeFileSync(join(home.home, '.gitconfig'), '[user]\n\tname = Phone Owner\n\temail = phone@machine.example\n');
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote]);
  gitIn(repo, 'init', '-q', '-b', 'main');
  mkdirSync(join(repo, 'src'));
  writeFileSync(join(repo, 'src/app.ts'), 'export const app = 1;\nexport const keep = true;\n');
  gitIn(repo, 'add', '.');
  gitIn(repo, 'commit', '-q', '-m', 'first');
  gitIn(repo, 'remote', 'add', 'origin', remote);
  gitIn(repo, 'push', '-q', '-u', 'origin', 'main');
  parts = await startHubAndRunner({ roots: [home.root], env: { ...home.env, XDG_CONFIG_HOME: home.root } });
  script.tools = [{ name: 'Write', input: { file_path: join(repo, 'src/hello.ts'), content: 'export const hello = "world";\n' } }];
  const started = await call('POST', `/api/machines/${parts.machine.machineId}/sessions`, { flavor: 'claude', path: repo, prompt: 'write hello', permissionMode: 'acceptEdits' });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  sid = started.body.sid as string;
  await waitFor(async () => ((await call('GET', `/api/sessions/${sid}`)).body as unknown as SessionSnapshot & { activity: string }).activity === 'idle', 60_000, `the turn ends; runner:\n${parts.runner.output()}`);
  writeFileSync(join(repo, 'src/app.ts'), `export const app = 2;\nexport const keep = true;\n${LONG_LINE}\n`);
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await parts?.stop();
  await model?.close();
  home?.remove();
});

describe('the work on a 390 px phone (real runner, real Claude Code, real git)', () => {
  it('lists the changes with their counts, shows a wrapped diff and the files, and commits and pushes from the page', async () => {
    const page = await phone(TEST_TOKENS.operator);
    await waitForText(page, '#changes-title', 'Changes (2)', 15_000);
    await waitForText(page, '#branch-line', 'main · origin/main');
    const rows = await page.locator('#changes .change').evaluateAll((items) =>
      items.map((item) => ['.change-path', '.change-status', '.adds', '.dels'].map((part) => item.querySelector(part)?.textContent?.trim()).join(' ')),
    );
    expect(rows).toEqual(['src/app.ts modified +2 −1', 'src/hello.ts new +1 −0']);
    await page.locator('#session-work').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'work-changes-phone.png') });

    await page.click('.change[data-path="src/app.ts"] .change-file');
    await page.waitForSelector('.change[data-path="src/app.ts"] .diff');
    const added = await page.locator('.change[data-path="src/app.ts"] .diff-add .code').allTextContents();
    expect(added).toEqual(['export const app = 2;', LONG_LINE]);
    expect(await page.locator('.change[data-path="src/app.ts"] .diff-del .code').allTextContents()).toEqual(['export const app = 1;']);
    // line numbers: the kept line is 2 on both sides
    expect(await page.locator('.change[data-path="src/app.ts"] .diff-ctx').first().locator('.ln').allTextContents()).toEqual(['2', '2']);
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    await page.locator('.change[data-path="src/app.ts"] .diff').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'work-diff-phone.png') });

    await page.click('#file-browser summary');
    await page.click('.file-entry.dir:has-text("src/")');
    await page.click('.file-entry:has-text("hello.ts")');
    await waitForText(page, '.file-text', 'export const hello = "world";');
    await page.click('#files-up');
    await waitForText(page, '.file-entries', 'app.ts');

    await page.fill('#commit-message', 'Say hello');
    await page.check('#commit-push');
    await page.click('#commit-button');
    await waitForText(page, '#commit-outcome', 'pushed to origin', 20_000);
    const hash = gitIn(repo, 'rev-parse', 'HEAD');
    expect(await page.textContent('#commit-outcome')).toContain(`Committed ${hash.slice(0, 7)} on main (2 files)`);
    expect(gitIn(remote, 'log', '-1', '--format=%H %an %s', 'main')).toBe(`${hash} Phone Owner Say hello`);
    await waitForText(page, '#no-changes', 'Nothing changed since the last commit', 10_000);
    await waitForText(page, '#changes-title', 'Changes (0)');
    await page.locator('#commit-outcome, #session-work').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'work-committed-phone.png') });
    await page.context().close();
  });

  it('starts an agent in a new worktree from the page; its worktree is removed from the page once it ended, the branch kept', async () => {
    const page = await phone(TEST_TOKENS.operator);
    await page.locator('#nav-machines').click();
    await page.locator('#new-path').fill(repo);
    await page.locator('#new-path').dispatchEvent('change');
    await page.selectOption('#new-mode', 'acceptEdits');
    await page.check('#new-worktree');
    await page.fill('#new-branch', 'phone-branch');
    const worktree = join(`${repo}.worktrees`, 'phone-branch');
    script.tools = [{ name: 'Write', input: { file_path: join(worktree, 'src/phone.ts'), content: 'from the phone\n' } }];
    await page.fill('#new-prompt', 'write phone.ts');
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    await page.click('#new-start');
    await page.waitForURL(/#\/s\//);
    const started = decodeURIComponent(page.url().split('#/s/')[1]!);
    await waitForText(page, '#worktree-card', 'phone-branch', 15_000);
    await waitForText(page, '#changes', 'src/phone.ts', 60_000);
    expect(existsSync(join(repo, 'src/phone.ts'))).toBe(false);
    await waitForText(page, '#worktree-card', 'once the session has ended');
    await page.click('#stop');
    await waitForText(page, '#worktree-card', 'Remove the worktree', 30_000);
    await page.click('#worktree-remove');
    await waitForText(page, '#worktree-card', 'uncommitted changes', 10_000);
    await page.click('#worktree-remove-force');
    await waitForText(page, '#worktree-card', 'the branch is kept', 10_000);
    expect(existsSync(worktree)).toBe(false);
    expect(gitIn(repo, 'branch', '--list', 'phone-branch')).toContain('phone-branch');
    expect(((await call('GET', `/api/sessions/${started}`)).body.metadata as { value: Record<string, unknown> }).value.worktreeRemoved).toMatchObject({ branch: 'phone-branch', force: true });
    await page.context().close();
  });

  it('New session checks the directory while it is typed, and makes a missing folder', async () => {
    const page = await phone(TEST_TOKENS.operator);
    await page.locator('#nav-machines').click();
    await page.locator('#new-path').fill('/etc');
    await waitForText(page, '#new-path-problem', 'is not under a root', 5_000);
    expect(await page.locator('#new-mkdir').count()).toBe(0);
    const fresh = join(home.root, 'brand-new');
    await page.locator('#new-path').fill(fresh);
    await waitForText(page, '#new-path-problem', 'does not exist', 5_000);
    await page.click('#new-mkdir');
    await page.locator('#new-path-problem').waitFor({ state: 'detached', timeout: 5_000 });
    expect(existsSync(fresh)).toBe(true);
    // the same through the API: twice is a conflict, outside the roots or from an agent's token refused
    const dirs = `/api/machines/${parts.machine.machineId}/dirs`;
    expect((await call('POST', dirs, { path: fresh })).body.error).toBe('conflict');
    expect((await call('POST', dirs, { path: '/tmp/not-a-root-dir' })).body.error).toBe('path_outside_roots');
    expect((await call('POST', dirs, { path: join(home.root, 'a/b/c') })).body.error).toBe('not_found');
    expect((await httpCall(parts.hub.url, 'POST', dirs, { token: TEST_TOKENS.agent, body: { path: join(home.root, 'x') } })).status).toBe(403);
    expect(existsSync(join(home.root, 'a'))).toBe(false);
    await page.context().close();
  });

  it('a dashboard token sees the changes, and no Commit', async () => {
    writeFileSync(join(repo, 'src/later.ts'), 'later\n');
    const page = await phone(TEST_TOKENS.dashboard);
    await waitForText(page, '#changes-title', 'Changes (1)', 15_000);
    expect(await page.locator('#commit-form').count()).toBe(0);
    await page.context().close();
  });
});
