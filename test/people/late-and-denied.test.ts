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
import { ManualClock } from '../../hub/clock.js';
import { runCli } from '../helpers/cli.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { gatedUrl, stopDrainers } from '../hook/run-cli.js';
import { attentionPayload, hubApi, startHook } from './hook-processes.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

async function setUp(config: Record<string, unknown> = {}, clock?: ManualClock): Promise<{ hub: TestHub; env: (url?: string) => Record<string, string> }> {
  const hub = await startTestHub({ config, ...(clock ? { clock } : {}) });
  const spoolDir = mkdtempSync(join(tmpdir(), 'session-hub-spool-'));
  cleanups.push(() => hub.close(), () => {
    stopDrainers(spoolDir);
    rmSync(spoolDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });
  return { hub, env: (url = hub.url) => ({ SESSION_HUB_URL: url, SESSION_HUB_TOKEN: hub.tokens.runner, SESSION_HUB_SPOOL_DIR: spoolDir }) };
}

async function hook(body: Record<string, unknown>, env: Record<string, string>): Promise<void> {
  const run = await runCli(['hook', 'claude'], { stdin: JSON.stringify(body), env });
  expect(run.code, run.stderr).toBe(0);
}

/**
 * A PermissionRequest fired while the hub is away (a gate in front of it, closed) is spooled, and the
 * agent asks in its terminal; the bridge's drainer delivers it once the gate opens, after `sleepMs`.
 * No later hook of the agent is involved (one would set or clear attention itself). The hub's clock
 * runs `hubClockOffsetMs` off the agent machine's.
 */
async function spooledThenDelivered(options: { waitMs: number; sleepMs: number; hubClockOffsetMs?: number }) {
  const offset = options.hubClockOffsetMs ?? 0;
  const { hub, env } = await setUp({ approvalWaitMs: options.waitMs }, offset === 0 ? undefined : new ManualClock(Date.now() + offset));
  const api = hubApi(() => ({ url: hub.url, token: hub.tokens.operator }));
  const gate = await gatedUrl(hub.url);
  await gate.close();
  cleanups.push(() => gate.close());
  const tag = `late-ask-${offset}-${options.sleepMs}`;
  await hook(attentionPayload('claude-permission-request', tag), { ...env(gate.url), SESSION_HUB_DRAIN_BACKOFF_MS: '100' });
  await new Promise((r) => setTimeout(r, options.sleepMs));
  await gate.open();
  let session = await api.sessionOf(tag);
  for (let tries = 0; tries < 200 && !session; tries++) {
    await new Promise((r) => setTimeout(r, 50));
    session = await api.sessionOf(tag);
  }
  expect(session, 'the drainer delivered the spooled PermissionRequest').toBeDefined();
  return { session: session!, approvals: await api.approvalsOf(session!.sid) };
}

describe('a PermissionRequest that reached the hub after its wait', () => {
  it('never shows as waiting: no permission attention and no approval', async () => {
    const { session, approvals } = await spooledThenDelivered({ waitMs: 1000, sleepMs: 1500 });
    expect(session.attention).toBeNull();
    expect(approvals).toEqual([]);
  });

  it('one delivered within its wait shows that the agent asks (no approval: nobody waits on a spooled one)', async () => {
    const { session, approvals } = await spooledThenDelivered({ waitMs: 60_000, sleepMs: 0 });
    expect(session.attention).toMatchObject({ kind: 'permission' });
    expect(approvals).toEqual([]);
  });
});

describe("the hub's clock and the agent machine's an hour apart", () => {
  // the age the bridge measured by its own clock decides "late", not the agent's clock against the hub's
  it('a PermissionRequest delivered within its wait still shows with the hub clock an hour ahead', async () => {
    expect((await spooledThenDelivered({ waitMs: 60_000, sleepMs: 0, hubClockOffsetMs: 3_600_000 })).session.attention).toMatchObject({ kind: 'permission' });
  });

  it('one delivered after its wait never shows with the hub clock an hour behind', async () => {
    expect((await spooledThenDelivered({ waitMs: 1000, sleepMs: 1500, hubClockOffsetMs: -3_600_000 })).session.attention).toBeNull();
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
