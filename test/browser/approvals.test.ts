/**
 * The whole approval loop in Chromium: a real `session-hub hook claude` process fed Claude Code's
 * real PermissionRequest payload (test/hook/fixtures/attention) puts its session into permission;
 * the dashboard, signed in with an operator token, shows the session waiting and the pending
 * approval; clicking Allow makes the waiting hook process print Claude Code's allow output.
 * The Allow/Deny controls are the page's (`[data-approval-id]` holding `button[data-decision]`).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { permissionRequestStdout } from '../../shared/permission-output.js';
import type { Approval } from '../../shared/protocol/attention.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import type { TestHub } from '../helpers/hub.js';
import { screenshot, signIn, useDashboardPages } from './browser.js';
import { useBridgeProcesses } from './bridge-processes.js';

const REQUEST = (JSON.parse(readFileSync(resolve(import.meta.dirname, '../hook/fixtures/attention/claude-permission-request.json'), 'utf8')) as { payload: Record<string, unknown> }).payload;

let hub: TestHub;
let page: Page;

useDashboardPages({
  suite: (started) => ({ hub } = started),
  test: (opened) => ({ page } = opened),
});

const hookProcess = useBridgeProcesses(() => hub, { waitMs: 20000 });

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
