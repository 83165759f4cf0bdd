/**
 * Attention and approvals end to end through real `session-hub hook claude` processes fed Claude
 * Code's real payloads (test/hook/fixtures/attention, each naming its source): a PermissionRequest
 * process waits for a decision made over HTTP with an operator token and prints it; nobody deciding,
 * or the hub being down, leaves stdout empty and exit 0; Notification / Stop / StopFailure set the
 * session's attention and UserPromptSubmit / PreToolUse clear it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { permissionRequestStdout } from '../../shared/permission-output.js';
import type { Approval } from '../../shared/protocol/attention.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { runCli } from '../helpers/cli.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { releaseDatabaseOf } from '../helpers/test-store.js';
import { deadUrl, fixture, hubSpool, useBridgeHub } from './run-cli.js';

const BRIDGE = resolve(import.meta.dirname, '../../dist/hook-bridge.cjs');

let hub: TestHub;
let spoolDir: string;
const { env, get } = useBridgeHub((started) => ({ hub, spoolDir } = started));

/** A real payload of test/hook/fixtures/attention (the prompt: of claude-session.json), in an agent session of the test's own. */
function payload(name: string, sessionId: string): Record<string, unknown> {
  const body = name === 'claude-user-prompt-submit'
    ? fixture('claude-session.json').find((p) => p.hook_event_name === 'UserPromptSubmit')!
    : (JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'attention', `${name}.json`), 'utf8')) as { payload: Record<string, unknown> }).payload;
  return { ...body, session_id: sessionId };
}

interface HookRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** ms from spawn to exit. */
  tookMs: number;
}

/** One hook process of the bundled bridge (what `hook install` writes), started now; resolves when it exits. */
function hookProcess(body: Record<string, unknown>, hookEnv: Record<string, string>): Promise<HookRun> {
  const started = performance.now();
  const child = spawn(process.execPath, [BRIDGE, 'claude'], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...hookEnv }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(JSON.stringify(body));
  return new Promise((resolveRun) => child.once('close', (code) => resolveRun({ code, stdout, stderr, tookMs: performance.now() - started })));
}

async function hook(name: string, sessionId: string): Promise<void> {
  const run = await runCli(['hook', 'claude'], { stdin: JSON.stringify(payload(name, sessionId)), env: env() });
  expect(run, run.stderr).toMatchObject({ code: 0, stdout: '' });
}

async function sessionOf(tag: string): Promise<SessionSnapshot> {
  const { sessions } = await get<{ sessions: SessionSnapshot[] }>('/api/sessions?limit=500');
  const found = sessions.find((s) => s.tag === tag);
  expect(found, `session ${tag}`).toBeDefined();
  return get<SessionSnapshot>(`/api/sessions/${found!.sid}`);
}

/** The session's pending approval, once the waiting hook process has opened it. */
async function pendingApproval(tag: string): Promise<{ sid: string; approval: Approval }> {
  for (let tries = 0; tries < 300; tries++) {
    const { sessions } = await get<{ sessions: SessionSnapshot[] }>('/api/sessions?limit=500');
    const sid = sessions.find((s) => s.tag === tag)?.sid;
    if (sid !== undefined) {
      const { approvals } = await get<{ approvals: Approval[] }>(`/api/sessions/${sid}/approvals`);
      const pending = approvals.find((a) => a.status === 'pending');
      if (pending) return { sid, approval: pending };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no pending approval for ${tag}`);
}

function decide(sid: string, approvalId: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${hub.url}/api/sessions/${sid}/approvals/${approvalId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${hub.tokens.operator}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('a PermissionRequest hook process waits for the dashboard\'s decision', () => {
  it('allow: the waiting process prints Claude Code\'s allow output and exits 0; the session waited meanwhile', async () => {
    await hook('claude-pre-tool-use', 'appr-allow');
    const waiting = hookProcess(payload('claude-permission-request', 'appr-allow'), env());
    const { sid, approval } = await pendingApproval('appr-allow');
    expect(approval).toMatchObject({ tool: 'Bash', input: { command: 'rm -rf node_modules', description: 'Remove node_modules directory' }, cwd: '/Users/...' });
    const session = await sessionOf('appr-allow');
    expect(session.attention).toMatchObject({ kind: 'permission', tool: 'Bash' });
    expect(session.activity).toBe('waiting');

    const response = await decide(sid, approval.approvalId, { decision: 'allow' });
    expect(response.status).toBe(200);
    const run = await waiting;
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(permissionRequestStdout({ decision: 'allow' }));
    expect((await sessionOf('appr-allow')).attention).toBeNull();
  });

  it('deny with a message: the process prints the deny output carrying the message', async () => {
    const waiting = hookProcess(payload('claude-permission-request', 'appr-deny'), env());
    const { sid, approval } = await pendingApproval('appr-deny');
    expect((await decide(sid, approval.approvalId, { decision: 'deny', message: 'not on this machine' })).status).toBe(200);
    const run = await waiting;
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(permissionRequestStdout({ decision: 'deny', message: 'not on this machine' }));
  });

  it('always allow this here: the approval offers the rule Claude Code suggested; an allow with it prints the rule back as updatedPermissions', async () => {
    const asked = payload('claude-permission-request', 'appr-always');
    const waiting = hookProcess(asked, env());
    const { sid, approval } = await pendingApproval('appr-always');
    const suggested = [{ type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'rm -rf node_modules' }], behavior: 'allow', destination: 'localSettings' }];
    expect(asked.permission_suggestions).toEqual(suggested);
    expect(approval).toMatchObject({ alwaysOffer: suggested, always: false, askedBy: 'hook' });
    // with a deny, or on an approval that offers nothing, `always` is refused, naming it
    const refused = await decide(sid, approval.approvalId, { decision: 'deny', always: true });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toMatch(/always/);
    expect((await decide(sid, approval.approvalId, { decision: 'allow', always: true })).status).toBe(200);
    const run = await waiting;
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow', updatedPermissions: suggested } } });
    const { approvals } = await get<{ approvals: Approval[] }>(`/api/sessions/${sid}/approvals`);
    expect(approvals[0]).toMatchObject({ status: 'allowed', always: true });
  });

  it('an approval whose request suggests no allow rule offers none: `always` is refused', async () => {
    const { permission_suggestions: _none, ...asked } = payload('claude-permission-request', 'appr-no-rule');
    const waiting = hookProcess(asked, env());
    const { sid, approval } = await pendingApproval('appr-no-rule');
    expect(approval.alwaysOffer).toBeNull();
    const refused = await decide(sid, approval.approvalId, { decision: 'allow', always: true });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toMatch(/always: this approval offers no rule/);
    expect((await decide(sid, approval.approvalId, { decision: 'allow' })).status).toBe(200);
    expect((await waiting).stdout).toBe(permissionRequestStdout({ decision: 'allow' }));
  });

  it('nobody decides: within the bridge\'s bound it prints nothing and exits 0; the approval ends expired, a later decision is 409', async () => {
    const bound = 2500;
    const run = await hookProcess(payload('claude-permission-request', 'appr-none'), { ...env(), SESSION_HUB_HOOK_WAIT_MS: String(bound) });
    expect(run).toMatchObject({ code: 0, stdout: '' });
    // the hub waited bound - 500 ms; the process ends within its bound (plus its own start)
    expect(run.tookMs).toBeGreaterThan(bound - 500);
    expect(run.tookMs).toBeLessThan(bound + 5000);
    const session = await sessionOf('appr-none');
    const { approvals } = await get<{ approvals: Approval[] }>(`/api/sessions/${session.sid}/approvals`);
    expect(approvals.map((a) => a.status)).toEqual(['expired']);
    // the agent now asks in its terminal: the session still waits for a person
    expect(session.attention).toMatchObject({ kind: 'permission' });
    const late = await decide(session.sid, approvals[0]!.approvalId, { decision: 'allow' });
    expect(late.status).toBe(409);
  });

  it('the hub is down: nothing printed, exit 0 at once, the event kept in the spool', async () => {
    const down = env(await deadUrl());
    const run = await hookProcess(payload('claude-permission-request', 'appr-down'), down);
    expect(run).toMatchObject({ code: 0, stdout: '' });
    expect(run.tookMs).toBeLessThan(5000);
    expect(readFileSync(join(hubSpool(down), 'spool-claude.jsonl'), 'utf8')).toContain('"hook_event_name":"PermissionRequest"');
  });

  it('answered in the terminal: the tool\'s PostToolUse supersedes the approval and the waiting process ends printing nothing', async () => {
    const waiting = hookProcess(payload('claude-permission-request', 'appr-term'), env());
    const { sid } = await pendingApproval('appr-term');
    // Claude Code's PostToolUse example, for the call the PermissionRequest asked about (another call's would not answer it)
    const asked = payload('claude-permission-request', 'appr-term');
    const done = { ...payload('claude-post-tool-use', 'appr-term'), tool_name: asked.tool_name, tool_input: asked.tool_input };
    const posted = await runCli(['hook', 'claude'], { stdin: JSON.stringify(done), env: env() });
    expect(posted, posted.stderr).toMatchObject({ code: 0, stdout: '' });
    const run = await waiting;
    expect(run).toMatchObject({ code: 0, stdout: '' });
    const { approvals } = await get<{ approvals: Approval[] }>(`/api/sessions/${sid}/approvals`);
    expect(approvals.map((a) => a.status)).toEqual(['superseded']);
    expect((await sessionOf('appr-term')).attention).toBeNull();
  });

  it('the wait holds no spool lock: another hook process of the same agent delivers meanwhile', async () => {
    const waiting = hookProcess(payload('claude-permission-request', 'appr-lock'), env());
    const { sid, approval } = await pendingApproval('appr-lock');
    // Claude Code's own permission_prompt notification, while the PermissionRequest process waits
    const other = await hookProcess(payload('claude-notification-permission-prompt', 'appr-lock'), env());
    expect(other).toMatchObject({ code: 0, stdout: '' });
    expect(other.stderr).toBe('');
    const session = await sessionOf('appr-lock');
    expect(session.attention).toMatchObject({ kind: 'permission', message: 'Claude needs your permission to use Bash' });
    expect((await decide(sid, approval.approvalId, { decision: 'allow' })).status).toBe(200);
    expect((await waiting).stdout).toBe(permissionRequestStdout({ decision: 'allow' }));
  });
});

describe('the hub stops while a hook process waits', () => {
  it("a hub that does not come back within the agent's wait: the hook prints nothing (exit 0: the agent asks in its terminal), and the approval reads interrupted, not expired", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'session-hub-stop-'));
    try {
      const first = await startTestHub({ dataDir });
      // an 8 s bound: the hook waits that long for a hub to answer again (the next hub is on another port)
      const waiting = hookProcess(payload('claude-permission-request', 'appr-stop'), { ...env(first.url), SESSION_HUB_HOOK_WAIT_MS: '8000' });
      let approvalId: string | undefined;
      let sid: string | undefined;
      for (let tries = 0; tries < 300 && approvalId === undefined; tries++) {
        const headers = { authorization: `Bearer ${first.tokens.operator}` };
        const { sessions } = (await (await fetch(`${first.url}/api/sessions?limit=500`, { headers })).json()) as { sessions: SessionSnapshot[] };
        sid = sessions.find((s) => s.tag === 'appr-stop')?.sid;
        if (sid !== undefined) approvalId = ((await (await fetch(`${first.url}/api/sessions/${sid}/approvals`, { headers })).json()) as { approvals: Approval[] }).approvals[0]?.approvalId;
        if (approvalId === undefined) await new Promise((r) => setTimeout(r, 50));
      }
      expect(approvalId).toBeDefined();
      const stopping = performance.now();
      await first.close();
      const run = await waiting;
      expect(run).toMatchObject({ code: 0, stdout: '' });
      // within the hook's own bound, not the 50 s the hub would otherwise have waited
      expect(performance.now() - stopping).toBeLessThan(15_000);

      const second = await startTestHub({ dataDir });
      try {
        const response = await fetch(`${second.url}/api/sessions/${sid}/approvals`, { headers: { authorization: `Bearer ${second.tokens.operator}` } });
        expect(((await response.json()) as { approvals: Approval[] }).approvals.map((a) => a.status)).toEqual(['interrupted']);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      await releaseDatabaseOf(dataDir);
    }
  });
});

describe('attention from real hook processes', () => {
  it('Notification, Stop and StopFailure set it; UserPromptSubmit and PreToolUse clear it; activity reads waiting only for a permission or question', async () => {
    const tag = 'att-1';
    await hook('claude-notification-permission-prompt', tag);
    let session = await sessionOf(tag);
    expect(session.attention).toMatchObject({ kind: 'permission', message: 'Claude needs your permission to use Bash' });
    expect(session.activity).toBe('waiting');

    await hook('claude-pre-tool-use', tag);
    expect((await sessionOf(tag)).attention).toBeNull();

    // "Claude is waiting for your input" asks nothing (issue 34): no attention, not "needs you"
    await hook('claude-notification-idle-prompt', tag);
    session = await sessionOf(tag);
    expect(session.attention).toBeNull();
    expect(session.activity).not.toBe('waiting');

    await hook('claude-user-prompt-submit', tag);
    session = await sessionOf(tag);
    expect(session.attention).toBeNull();
    expect(session.activity).not.toBe('waiting');

    await hook('claude-stop', tag);
    session = await sessionOf(tag);
    expect(session.attention).toMatchObject({ kind: 'done', message: "I've completed the refactoring. Here's a summary..." });
    // a finished turn is ready, not waiting on anyone
    expect(session.activity).toBe('idle');

    // StopFailure maps to no lifecycle action: it still sets attention, at its own time
    await hook('claude-stop-failure', tag);
    session = await sessionOf(tag);
    expect(session.attention).toMatchObject({ kind: 'failed', message: 'API Error: Rate limit reached' });
    expect(session.activity).not.toBe('waiting');
  });
});

describe('the bundled bridge', () => {
  it('loads only node built-ins (no zod): static and dynamic imports of dist/hook-bridge.cjs', () => {
    const bundle = readFileSync(BRIDGE, 'utf8');
    const specifiers = [...bundle.matchAll(/\bfrom\s*["']([^"']+)["']|\b(?:import|require)\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1] ?? m[2]);
    expect(specifiers.length).toBeGreaterThan(0);
    for (const specifier of specifiers) expect(specifier, specifier).toMatch(/^node:/);
    expect(bundle).not.toMatch(/\bzod\b/);
  });
});

describe('POST /api/hooks: a sync event\'s wait', () => {
  it('refuses a waitMs that is not a positive number of ms up to 1 hour (the longest approval wait), naming the field, and applies nothing', async () => {
    for (const waitMs of [0, -5, 3_600_001, 1.5]) {
      const response = await fetch(`${hub.url}/api/hooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${hub.tokens.runner}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events: [{ id: `bad-wait-${waitMs}`, flavor: 'claude', firedAt: Date.now(), seq: 0, sync: true, waitMs, payload: payload('claude-permission-request', 'bad-wait') }] }),
      });
      expect(response.status, String(waitMs)).toBe(400);
      const body = (await response.json()) as { error: string; message: string };
      expect(body.error).toBe('invalid_payload');
      expect(body.message).toContain('waitMs');
    }
    const { sessions } = await get<{ sessions: SessionSnapshot[] }>('/api/sessions?limit=500');
    expect(sessions.filter((s) => s.tag === 'bad-wait')).toEqual([]);
  });
});
