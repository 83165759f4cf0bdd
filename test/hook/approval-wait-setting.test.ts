/**
 * One setting for how long an approval waits (issue 34, point 3): the hub's
 * `SESSION_HUB_APPROVAL_WAIT_MS`, followed by the installed hooks. A real PermissionRequest hook
 * process, with nothing set on the agent's side, waits as long as the hub is set to (the
 * approval's `expiresAt`, the page's countdown), by default long enough to reach a phone; and
 * `hook install` writes the agent's hook timeout above the longest the hub may be set to.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_APPROVAL_WAIT_MS, MAX_APPROVAL_WAIT_MS } from '../../shared/approval-wait.js';
import { permissionRequestStdout } from '../../shared/permission-output.js';
import type { Approval } from '../../shared/protocol/attention.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { loadConfig } from '../../hub/config.js';
import { runCli } from '../helpers/cli.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

const BRIDGE = resolve(import.meta.dirname, '../../dist/hook-bridge.cjs');
const REQUEST = (JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'attention', 'claude-permission-request.json'), 'utf8')) as { payload: Record<string, unknown> }).payload;

let hub: TestHub | undefined;
let spoolDir: string | undefined;
afterEach(async () => {
  await hub?.close();
  if (spoolDir) rmSync(spoolDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  hub = undefined;
  spoolDir = undefined;
});

/** A hook process as `hook install` runs it: only the hub's address and token set, nothing about waiting. */
function permissionRequest(started: TestHub, tag: string): Promise<{ code: number | null; stdout: string }> {
  spoolDir = mkdtempSync(join(tmpdir(), 'session-hub-spool-'));
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SESSION_HUB_URL: started.url, SESSION_HUB_TOKEN: started.tokens.runner, SESSION_HUB_SPOOL_DIR: spoolDir };
  const child = spawn(process.execPath, [BRIDGE, 'claude'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stdin.end(JSON.stringify({ ...REQUEST, session_id: tag }));
  return new Promise((done) => child.once('close', (code) => done({ code, stdout })));
}

async function pending(started: TestHub, tag: string): Promise<{ sid: string; approval: Approval }> {
  const auth = { authorization: `Bearer ${started.tokens.dashboard}` };
  for (let tries = 0; tries < 300; tries++) {
    const { sessions } = (await (await fetch(`${started.url}/api/sessions?limit=500`, { headers: auth })).json()) as { sessions: SessionSnapshot[] };
    const sid = sessions.find((s) => s.tag === tag)?.sid;
    if (sid !== undefined) {
      const { approvals } = (await (await fetch(`${started.url}/api/sessions/${sid}/approvals`, { headers: auth })).json()) as { approvals: Approval[] };
      const open = approvals.find((a) => a.status === 'pending');
      if (open) return { sid, approval: open };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no pending approval for ${tag}`);
}

/** Opens an approval through a real hook process, reads how long it waits, then allows it. */
async function waitOf(started: TestHub, tag: string): Promise<number> {
  const run = permissionRequest(started, tag);
  const { sid, approval } = await pending(started, tag);
  const decided = await fetch(`${started.url}/api/sessions/${sid}/approvals/${approval.approvalId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${started.tokens.operator}`, 'content-type': 'application/json' },
    body: JSON.stringify({ decision: 'allow' }),
  });
  expect(decided.status).toBe(200);
  expect(await run).toEqual({ code: 0, stdout: permissionRequestStdout({ decision: 'allow' }) });
  return approval.expiresAt! - approval.createdAt;
}

describe('how long an approval waits: the hub’s one setting', () => {
  it('by default long enough to decide from a phone (at least 5 minutes), with nothing set on the agent’s side', async () => {
    hub = await startTestHub();
    expect(DEFAULT_APPROVAL_WAIT_MS).toBeGreaterThanOrEqual(5 * 60_000);
    const waits = await waitOf(hub, 'wait-default');
    expect(waits).toBeGreaterThan(DEFAULT_APPROVAL_WAIT_MS - 5000);
    expect(waits).toBeLessThanOrEqual(DEFAULT_APPROVAL_WAIT_MS + 1000); // created at the hook's firing, expiring from the hub's receipt
  });

  it('the installed hook waits as long as the hub is set to: 20 minutes', async () => {
    hub = await startTestHub({ config: { approvalWaitMs: 20 * 60_000 } });
    const waits = await waitOf(hub, 'wait-twenty');
    expect(waits).toBeGreaterThan(20 * 60_000 - 5000);
    expect(waits).toBeLessThanOrEqual(20 * 60_000 + 1000);
  });

  it('the hub refuses a wait longer than the installed hooks are ready for, naming the setting', () => {
    expect(() => loadConfig({ SESSION_HUB_APPROVAL_WAIT_MS: String(MAX_APPROVAL_WAIT_MS + 1) })).toThrow(/SESSION_HUB_APPROVAL_WAIT_MS: must be at most 3600000/);
  });

  it('`hook install` writes the approval hook’s timeout above the longest wait the hub may be set to', async () => {
    const project = mkdtempSync(join(tmpdir(), 'session-hub-project-'));
    try {
      const file = join(project, 'settings.json');
      const install = await runCli(['hook', 'install', 'claude', '--write', '--file', file]);
      expect(install.code, install.stderr).toBe(0);
      const { hooks } = JSON.parse(readFileSync(file, 'utf8')) as { hooks: Record<string, { hooks: { timeout?: number }[] }[]> };
      expect(hooks.PermissionRequest![0]!.hooks[0]!.timeout! * 1000).toBeGreaterThan(MAX_APPROVAL_WAIT_MS + 3000);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
