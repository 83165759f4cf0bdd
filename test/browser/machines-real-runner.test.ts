/**
 * Machines from a phone with the real parts (docs/machines.md): Chromium at 390 px, a real
 * `session-hub runner` process and the real Claude Code CLI against a scripted model server. The
 * person sees the machine online, starts a session under its root, sees the reply in the
 * timeline, allows its tool from the page, sends the idle agent a message and sees it answered,
 * stops it; then continues a session started in a terminal (`claude -p` with our hooks) and the
 * model sees the earlier turn. Screenshots go to test-results/machines-real-*.png.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { startAnthropicServer } from '../agents/helpers/anthropic-server.js';
import { claudeHeadless, claudeProject, writeClaudeState, type ClaudeProject } from '../agents/helpers/claude.js';
import type { ModelServer } from '../agents/helpers/model-server.js';
import { waitFor } from '../helpers/clients.js';
import type { TestHub } from '../helpers/hub.js';
import { stopDrainers } from '../hook/run-cli.js';
import { spawnRunner, type RunnerProcess } from '../runner/helpers/runner-process.js';
import { screenshot, signIn, useDashboardPages } from './browser.js';

let hub: TestHub;
let page: Page;
useDashboardPages({
  suite: (started) => ({ hub } = started),
  test: (opened) => ({ page } = opened),
});

let model: ModelServer | undefined;
let project: ClaudeProject | undefined;
let runner: RunnerProcess | undefined;
let spoolDir: string | undefined;
afterEach(async () => {
  await runner?.stop();
  await model?.close();
  if (spoolDir) stopDrainers(spoolDir);
  for (const dir of [project && dirname(project.dir), spoolDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

const noSideScroll = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);
const sawModel = (text: string, since: number) => model!.requests.slice(since).some((r) => JSON.stringify(r.messages).includes(text));
const requestWith = (text: string) => JSON.stringify(model!.requests.find((r) => JSON.stringify(r.messages).includes(text))!.messages);

async function sessions(): Promise<SessionSnapshot[]> {
  const response = await fetch(`${hub.url}/api/sessions`, { headers: { authorization: `Bearer ${hub.tokens.operator}` } });
  return ((await response.json()) as { sessions: SessionSnapshot[] }).sessions;
}

/** Allows the session's pending tool call from the page, as a person taps Allow. */
async function allowFromPage(shot?: string) {
  const allow = page.locator('#session-approvals li.approval[data-status="pending"] button[data-decision="allow"]');
  await allow.waitFor({ timeout: 90_000 });
  // the runner waits on it, not a terminal: when the time is up it asks again
  expect(await page.locator('#session-approvals li.approval[data-status="pending"] .approval-left').first().textContent()).toMatch(/left, then the runner asks again$/);
  if (shot) await screenshot(page, shot);
  await allow.click();
}

describe('machines on the phone with the real runner and Claude Code', () => {
  it('starts, approves, talks to and stops an agent from the page, then continues a terminal session', { timeout: 420_000 }, async () => {
    model = await startAnthropicServer({ tools: [{ name: 'Bash', input: { command: 'touch approved.txt', description: 'make a file' } }], finalText: 'All done.' });
    spoolDir = mkdtempSync(join(tmpdir(), 'session-hub-spool-'));
    // the terminal project carries our hooks (agent token) and allows Bash; `fresh` is where the page starts an agent
    project = await claudeProject({
      modelUrl: model.url,
      hubEnv: { SESSION_HUB_URL: hub.url, SESSION_HUB_TOKEN: hub.tokens.agent, SESSION_HUB_SPOOL_DIR: spoolDir },
      allow: ['Bash'],
    });
    const root = dirname(project.dir);
    const fresh = join(root, 'fresh');
    mkdirSync(fresh);
    writeClaudeState(project.home, [project.dir, fresh]);
    const agentEnv = Object.fromEntries(Object.entries(project.env).filter(([key]) => !key.startsWith('SESSION_HUB_') && key !== 'PATH'));
    runner = spawnRunner({ hubUrl: hub.url, token: hub.tokens.machine, roots: [root], env: { ...agentEnv, XDG_CONFIG_HOME: join(root, 'config') } });

    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, hub.url, hub.tokens.operator);
    await page.locator('#nav-machines').click();
    await page.locator('li.machine[data-online="true"]').waitFor({ timeout: 30_000 }).catch(() => {
      throw new Error(`the machine is not online on the page; runner:\n${runner!.output()}`);
    });
    await page.locator('.dir[data-dir="fresh"]').click();
    expect(await page.locator('#new-path').inputValue()).toBe(fresh);
    await page.locator('#new-prompt').fill('first prompt');
    await screenshot(page, 'machines-real-1-new-session');
    expect(await noSideScroll()).toBe(true);
    await page.locator('#new-start').click();
    await page.waitForURL(/#\/s\//, { timeout: 60_000 });
    const sid = decodeURIComponent(page.url().split('#/s/')[1]!);

    // the agent asks before its command: Allow on the page, then its reply lands in the timeline
    await allowFromPage('machines-real-2-approval');
    await page.locator('li.turn[data-status="completed"]', { hasText: 'All done.' }).waitFor({ timeout: 90_000 });
    await screenshot(page, 'machines-real-3-replied');

    // idle now: a message is its next input at once, answered in a second turn
    const before = model.requests.length;
    await page.locator('#session-messages textarea').fill('second prompt');
    await page.locator('#session-messages button.send').click();
    await waitFor(async () => sawModel('second prompt', before), 60_000, `the model sees the message; runner:\n${runner.output()}`);
    await allowFromPage();
    await waitFor(async () => (await page.locator('li.turn[data-status="completed"]').count()) === 2, 90_000, 'the second turn completes on the page');
    await screenshot(page, 'machines-real-4-answered');

    await page.locator('#stop').click();
    await page.locator('#machine-outcome', { hasText: 'Stopped' }).waitFor({ timeout: 30_000 });
    // stopped mid-conversation: the card says so before any click and offers Continue anyway
    await page.locator('#continue-force').waitFor({ timeout: 30_000 });
    await screenshot(page, 'machines-real-5-stopped');
    expect(await noSideScroll()).toBe(true);

    // a session started in a terminal on the same computer, known through its hooks
    const terminal = await claudeHeadless(project, 'terminal prompt');
    expect(terminal.code, terminal.stderr).toBe(0);
    let terminalSid: string | undefined;
    await waitFor(async () => {
      const found = (await sessions()).find((s) => s.sid !== sid && s.metadata.value.path === project!.dir);
      terminalSid = found?.lifecycle.lastRun && found.lifecycle.lastRun.status !== 'running' ? found.sid : undefined;
      return terminalSid !== undefined;
    }, 30_000, 'the terminal session is reported through its hooks and its run ended');
    await page.goto(`${hub.url}/#/s/${encodeURIComponent(terminalSid!)}`);
    await page.locator('#continue-prompt').fill('phone follow-up');
    await screenshot(page, 'machines-real-6-continue');
    const beforeContinue = model.requests.length;
    await page.locator('#continue').click();
    await page.locator('#machine-outcome', { hasText: 'Continuing' }).waitFor({ timeout: 30_000 });
    await waitFor(async () => sawModel('phone follow-up', beforeContinue), 90_000, `the model sees the continued prompt; runner:\n${runner.output()}`);
    expect(requestWith('phone follow-up')).toContain('terminal prompt');
    await page.locator('li.turn[data-status="completed"]', { hasText: 'phone follow-up' }).waitFor({ timeout: 90_000 });
    await screenshot(page, 'machines-real-7-continued');
    expect(await noSideScroll()).toBe(true);
  });
});
