/**
 * The whole approval loop in Chromium: a real `session-hub hook claude` process fed Claude Code's
 * real PermissionRequest payload (test/hook/fixtures/attention) puts its session into permission;
 * the dashboard, signed in with an operator token, shows the session waiting and the pending
 * approval; clicking Allow makes the waiting hook process print Claude Code's allow output.
 * The Allow/Deny controls are the page's (`[data-approval-id]` holding `button[data-decision]`).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { permissionRequestStdout } from '../../shared/permission-output.js';
import type { Approval } from '../../shared/protocol/attention.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import type { TestHub } from '../helpers/hub.js';
import { stopDrainers } from '../hook/run-cli.js';
import { screenshot, signIn, useDashboardPages } from './browser.js';

const BRIDGE = resolve(import.meta.dirname, '../../dist/hook-bridge.cjs');
const REQUEST = (JSON.parse(readFileSync(resolve(import.meta.dirname, '../hook/fixtures/attention/claude-permission-request.json'), 'utf8')) as { payload: Record<string, unknown> }).payload;

let hub: TestHub;
let page: Page;
const spoolDirs: string[] = [];

useDashboardPages({
  suite: (started) => ({ hub } = started),
  test: (opened) => ({ page } = opened),
});

afterEach(() => {
  for (const dir of spoolDirs.splice(0)) {
    stopDrainers(dir);
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A real hook process of the bundled bridge; resolves with its exit code and stdout. */
function hookProcess(payload: Record<string, unknown>): Promise<{ code: number | null; stdout: string }> {
  const spoolDir = mkdtempSync(join(tmpdir(), 'session-hub-spool-'));
  spoolDirs.push(spoolDir);
  const child = spawn(process.execPath, [BRIDGE, 'claude'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SESSION_HUB_URL: hub.url, SESSION_HUB_TOKEN: hub.tokens.runner, SESSION_HUB_SPOOL_DIR: spoolDir, SESSION_HUB_HOOK_WAIT_MS: '20000' },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stdin.end(JSON.stringify(payload));
  return new Promise((resolveRun) => child.once('close', (code) => resolveRun({ code, stdout })));
}

async function api<T>(path: string): Promise<T> {
  const response = await fetch(`${hub.url}${path}`, { headers: { authorization: `Bearer ${hub.tokens.operator}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

async function pendingApproval(tag: string): Promise<{ sid: string; approvalId: string }> {
  for (let tries = 0; tries < 300; tries++) {
    const { sessions } = await api<{ sessions: SessionSnapshot[] }>('/api/sessions?limit=500');
    const sid = sessions.find((s) => s.tag === tag)?.sid;
    if (sid !== undefined) {
      const pending = (await api<{ approvals: Approval[] }>(`/api/sessions/${sid}/approvals`)).approvals.find((a) => a.status === 'pending');
      if (pending) return { sid, approvalId: pending.approvalId };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no pending approval for ${tag}`);
}

describe('approving a tool call from the dashboard', () => {
  it('a waiting PermissionRequest hook process prints the allow decision when Allow is clicked', async () => {
    const tag = `browser-approval-${Date.now()}`;
    const waiting = hookProcess({ ...REQUEST, session_id: tag });
    const { sid, approvalId } = await pendingApproval(tag);

    await signIn(page, hub.url, hub.tokens.operator);
    await page.waitForSelector(`li[data-sid="${sid}"][data-activity="waiting"]`);
    // the session is listed twice, under "needs you" first: open it from there, as a person would
    await page.locator(`li[data-sid="${sid}"] a.title`).first().click();
    const approval = page.locator(`[data-approval-id="${approvalId}"]`);
    await approval.waitFor({ timeout: 10_000 });
    expect(await approval.textContent()).toContain('Bash');
    await screenshot(page, 'approval-pending');
    await approval.locator('button[data-decision="allow"]').click();

    const run = await waiting;
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(permissionRequestStdout({ decision: 'allow' }));
    const { approvals } = await api<{ approvals: Approval[] }>(`/api/sessions/${sid}/approvals`);
    expect(approvals[0]).toMatchObject({ approvalId, status: 'allowed' });
  }, 60_000);
});
