/**
 * Issue 22.2, the hub's part. A PermissionRequest that reached the hub after its wait was over
 * (spooled while the hub was away, delivered by a later hook) never shows as waiting: no
 * `permission` attention, no approval. A denied tool does not stay "running" in its turn: the
 * PreToolUse's tool use ends `denied`, saying who denied it and why. Real hook processes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TurnWithActivity } from '../../shared/protocol/session.js';
import { runCli } from '../helpers/cli.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { deadUrl, stopDrainers } from '../hook/run-cli.js';
import { attentionPayload, hubApi, startHook } from './hook-processes.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

async function setUp(config: Record<string, unknown> = {}): Promise<{ hub: TestHub; env: (url?: string) => Record<string, string> }> {
  const hub = await startTestHub({ config });
  const spoolDir = mkdtempSync(join(tmpdir(), 'session-hub-spool-'));
  cleanups.push(() => hub.close(), () => {
    stopDrainers(spoolDir);
    rmSync(spoolDir, { recursive: true, force: true });
  });
  return { hub, env: (url = hub.url) => ({ SESSION_HUB_URL: url, SESSION_HUB_TOKEN: hub.tokens.runner, SESSION_HUB_SPOOL_DIR: spoolDir }) };
}

async function hook(body: Record<string, unknown>, env: Record<string, string>): Promise<void> {
  const run = await runCli(['hook', 'claude'], { stdin: JSON.stringify(body), env });
  expect(run.code, run.stderr).toBe(0);
}

describe('a PermissionRequest that reached the hub after its wait', () => {
  it('never shows as waiting: no permission attention and no approval once a later hook delivers it', async () => {
    const waitMs = 1000;
    const { hub, env } = await setUp({ approvalWaitMs: waitMs });
    const api = hubApi(() => ({ url: hub.url, token: hub.tokens.operator }));
    // the hub is away: the PermissionRequest is spooled, the agent asks in its terminal
    const away = await deadUrl();
    await hook(attentionPayload('claude-permission-request', 'late-ask'), env(away));
    await new Promise((r) => setTimeout(r, waitMs + 500));
    // the hub is back: the next hook of the agent delivers the spool first, then itself
    await hook(attentionPayload('claude-notification-auth-success', 'late-ask'), env());
    let session = await api.sessionOf('late-ask');
    for (let tries = 0; tries < 100 && !session; tries++) {
      await new Promise((r) => setTimeout(r, 50));
      session = await api.sessionOf('late-ask');
    }
    expect(session, 'the spooled events were delivered').toBeDefined();
    expect(session!.attention).toBeNull();
    expect(await api.approvalsOf(session!.sid)).toEqual([]);
  });
});

describe('a denied tool', () => {
  it('ends denied in its turn (who and why), not running', async () => {
    const { hub, env } = await setUp();
    const api = hubApi(() => ({ url: hub.url, token: hub.tokens.operator }));
    const asked = attentionPayload('claude-permission-request', 'denied-tool');
    // Claude Code's PreToolUse for the call, then its PermissionRequest
    await hook({ ...attentionPayload('claude-pre-tool-use', 'denied-tool'), tool_name: asked.tool_name, tool_input: asked.tool_input }, env());
    const waiting = startHook(asked, env());
    const { sid, approvals } = await api.approvalsWhen('denied-tool', (list) => list.some((a) => a.status === 'pending'), 'a pending approval');
    const running = (await api.get<TurnWithActivity[]>(`/api/sessions/${sid}/turns`)).flatMap((t) => t.activities);
    expect(running.map((a) => a.status)).toEqual(['running']);

    expect((await api.decide(sid, approvals[0]!.approvalId, { decision: 'deny', message: 'not on this machine' })).status).toBe(200);
    expect((await waiting.done).code).toBe(0);
    const after = (await api.get<TurnWithActivity[]>(`/api/sessions/${sid}/turns`)).flatMap((t) => t.activities);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ tool: 'Bash', status: 'denied', output: { message: 'not on this machine', deniedBy: expect.any(String) } });
    expect(after[0]!.endedAt).not.toBeNull();
  });
});
