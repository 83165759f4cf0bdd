/**
 * Sessions on this machine, from a phone (issue 48, spec section 16): Chromium at 390 px, a real hub
 * and runner, a session the real Claude Code CLI (`-p`, no hooks) left in its own store. The machine's
 * card lists it (searchable), Import makes it a hub session that reads like any other, its page shows
 * the terminal command to take it back, and Continue resumes it with its conversation.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicServer } from '../agents/helpers/anthropic-server.js';
import { agentBinaries, runToEnd } from '../agents/helpers/claude.js';
import type { ModelServer } from '../agents/helpers/model-server.js';
import { waitFor } from '../helpers/clients.js';
import { TEST_TOKENS } from '../helpers/tokens.js';
import { claudeHome, type ClaudeHome } from '../runner/helpers/claude-home.js';
import { startHubAndRunner, type HubAndRunner } from '../runner/helpers/hub-and-runner.js';
import { launchBrowser, screenshot, signIn, waitForText } from './browser.js';

let model: ModelServer;
let home: ClaudeHome;
let parts: HubAndRunner;
let browser: Browser;
let page: Page;
let agentId: string;

beforeAll(async () => {
  model = await startAnthropicServer({ tools: [], finalText: 'The tests pass.' });
  home = claudeHome(model.url);
  const ran = await runToEnd(agentBinaries().claude, ['-p', 'run the tests from my desk', '--output-format', 'json'], { cwd: home.dir, env: { ...home.env, PATH: process.env.PATH ?? '' } });
  expect(ran.code, ran.stderr).toBe(0);
  agentId = (JSON.parse(ran.stdout) as { session_id: string }).session_id;
  parts = await startHubAndRunner({ roots: [home.root], env: { ...home.env, XDG_CONFIG_HOME: home.root } });
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  page = await context.newPage();
  await signIn(page, parts.hub.url, TEST_TOKENS.operator);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await parts?.stop();
  await model?.close();
  home?.remove();
});

describe('sessions on this machine, at 390 px', () => {
  it('finds the terminal\'s session, imports it, shows the way back, and continues it', async () => {
    await page.locator('#nav-machines').click();
    const card = page.locator(`li.machine[data-machine="${parts.machine.machineId}"]`);
    await card.locator('.found-sessions summary').click();
    const row = card.locator(`.found[data-agent-session="${agentId}"]`);
    await row.waitFor({ timeout: 15_000 });
    expect(await row.textContent()).toContain('run the tests from my desk');
    await card.locator('.found-search').fill('nothing like this');
    await waitForText(page, `li.machine[data-machine="${parts.machine.machineId}"] .found-body`, 'None matches.');
    await card.locator('.found-search').fill(home.dir.split('/').at(-1)!);
    await row.waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, 'found-sessions-390');

    await row.locator('.found-import').click();
    await page.waitForURL(/#\/s\//);
    const sid = decodeURIComponent(page.url().split('#/s/')[1]!);
    // it reads like any other: its turn, what it last said, ended, and Continue where it ran
    await waitForText(page, '.turns-panel', 'run the tests from my desk', 10_000);
    await waitForText(page, '#last-words', 'The tests pass.');
    await page.locator('#continue-where[data-place="ok"]').waitFor({ timeout: 10_000 });
    expect(await page.locator('#take-back code').textContent()).toBe(`session-hub continue ${sid}`);
    await screenshot(page, 'imported-session-390');

    const before = model.requests.length;
    await page.fill('#continue-prompt', 'and now from the phone');
    await page.click('#continue');
    await waitFor(async () => model.requests.slice(before).some((r) => JSON.stringify(r.messages).includes('and now from the phone')), 60_000, `the continued prompt reaches the model; runner:\n${parts.runner.output()}`);
    const request = JSON.stringify(model.requests.slice(before).find((r) => JSON.stringify(r.messages).includes('and now from the phone'))!.messages);
    expect(request).toContain('run the tests from my desk');
    await waitForText(page, '.turns-panel', 'and now from the phone', 30_000);
    await page.click('#stop');
  });
});
