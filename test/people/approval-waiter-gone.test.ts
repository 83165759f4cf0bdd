/**
 * Issue 26.12: an approval ends when nobody waits on it any more. A waiting hook process killed
 * (kill -9): its request closes, the approval ends `abandoned` at once (broadcast like every
 * change) and a decision after it is 409, not a 200 "allowed" nobody received. A hub process killed
 * or stopped while hooks wait: the approvals left pending end `interrupted` (at its close, or at the
 * restart), and each hook asks again once the hub is back (issue 46.4). Real hook processes, a real
 * hub process, real SQLite file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnHub, stopHubsAfterEach } from '../helpers/hub-process.js';
import { attentionPayload, hubApi, startHook, useHookEnvs } from './hook-processes.js';

stopHubsAfterEach();
const hookEnv = useHookEnvs();

describe('an approval whose waiter is gone does not stay pending', () => {
  it('the waiting hook process is killed (kill -9): the approval ends abandoned at once; Allow after it is 409', async () => {
    const hub = await spawnHub();
    const api = hubApi(() => ({ url: hub.url, token: hub.tokens.operator }));
    const waiting = startHook(attentionPayload('claude-permission-request', 'gone-hook'), hookEnv(hub.url, hub.tokens.runner));
    const { sid, approvals } = await api.approvalsWhen('gone-hook', (list) => list.some((a) => a.status === 'pending'), 'a pending approval');
    waiting.child.kill('SIGKILL');
    expect((await waiting.done).signal).toBe('SIGKILL');

    // well within the hub's 50 s wait: the request's close ended it
    const { approvals: ended } = await api.approvalsWhen('gone-hook', (list) => list[0]?.status !== 'pending', 'the approval\'s end');
    expect(ended.map((a) => a.status)).toEqual(['abandoned']);
    const response = await api.decide(sid, approvals[0]!.approvalId, { decision: 'allow' });
    expect(response.status).toBe(409);
    const body = (await response.json()) as { message: string; approval: { status: string } };
    expect(body.approval.status).toBe('abandoned');
    expect(body.message).toMatch(/stopped waiting/);
  });

  it.each(['kill -9', 'SIGTERM'] as const)('the hub process stops while a hook waits (%s): the approval reads interrupted, the hook asks again on the restarted hub, and its decision reaches the agent (issue 46.4)', async (how) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'session-hub-gone-'));
    try {
      const first = await spawnHub({ dataDir });
      const api = hubApi(() => ({ url: first.url, token: first.tokens.operator }));
      const waiting = startHook(attentionPayload('claude-permission-request', 'gone-hub'), hookEnv(first.url, first.tokens.runner));
      const { sid, approvals } = await api.approvalsWhen('gone-hub', (list) => list.some((a) => a.status === 'pending'), 'a pending approval');
      if (how === 'kill -9') await first.kill9();
      else await first.stop();
      // the agent is not sent back to its terminal: its hook waits for the hub to be back
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(waiting.child.exitCode).toBeNull();

      const second = await spawnHub({ dataDir, port: first.port });
      const after = hubApi(() => ({ url: second.url, token: second.tokens.operator }));
      const { approvals: now } = await after.approvalsWhen('gone-hub', (list) => list.some((a) => a.status === 'pending'), 'the approval asked again');
      const old = now.find((a) => a.approvalId === approvals[0]!.approvalId)!;
      expect(old).toMatchObject({ status: 'interrupted', message: 'the hub stopped or restarted before anyone decided' });
      const refused = await after.decide(sid, old.approvalId, { decision: 'allow' });
      expect(refused.status).toBe(409);
      expect(((await refused.json()) as { message: string }).message).toMatch(/interrupted: the hub stopped or restarted before anyone decided; its agent's hook asks again/);

      const again = now.find((a) => a.status === 'pending')!;
      expect((await after.decide(sid, again.approvalId, { decision: 'allow' })).status).toBe(200);
      const done = await waiting.done;
      expect(done.code).toBe(0);
      expect(done.stdout).toContain('"allow"');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('the hub process stops (SIGTERM) and its hook does not come back: after the restart the session does not read "needs you" with nothing to decide (issue 46.4)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'session-hub-gone-'));
    try {
      const first = await spawnHub({ dataDir });
      const api = hubApi(() => ({ url: first.url, token: first.tokens.operator }));
      const waiting = startHook(attentionPayload('claude-permission-request', 'gone-asker'), hookEnv(first.url, first.tokens.runner));
      const { sid } = await api.approvalsWhen('gone-asker', (list) => list.some((a) => a.status === 'pending'), 'a pending approval');
      expect((await api.sessionOf('gone-asker'))?.attention?.kind).toBe('permission');
      await first.stop();
      // the agent went while the hub was down (its hook with it): nobody asks again
      waiting.child.kill('SIGKILL');
      await waiting.done;

      const second = await spawnHub({ dataDir, port: first.port });
      const after = hubApi(() => ({ url: second.url, token: second.tokens.operator }));
      expect((await after.approvalsOf(sid)).map((a) => [a.status, a.message])).toEqual([['interrupted', 'the hub stopped or restarted before anyone decided']]);
      const session = (await after.sessionOf('gone-asker'))!;
      expect(session.attention, 'no "needs you · wants approval" without an approval to decide').toBeNull();
      expect(session.activity).not.toBe('waiting');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
