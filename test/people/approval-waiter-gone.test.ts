/**
 * Issue 26.12: an approval ends when nobody waits on it any more. A waiting hook process killed
 * (kill -9): its request closes, the approval ends `abandoned` at once (broadcast like every
 * change) and a decision after it is 409, not a 200 "allowed" nobody received. A hub process killed
 * while hooks wait: at its restart the approvals left pending end `expired`. Real hook processes, a
 * real hub process, real SQLite file.
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

  it('the hub process is killed while a hook waits: after its restart the approval is expired, not pending', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'session-hub-gone-'));
    try {
      const first = await spawnHub({ dataDir });
      const api = hubApi(() => ({ url: first.url, token: first.tokens.operator }));
      const waiting = startHook(attentionPayload('claude-permission-request', 'gone-hub'), hookEnv(first.url, first.tokens.runner));
      const { sid, approvals } = await api.approvalsWhen('gone-hub', (list) => list.some((a) => a.status === 'pending'), 'a pending approval');
      await first.kill9();
      // the hook process learns nothing: it prints nothing and the agent asks in its terminal
      expect(await waiting.done).toMatchObject({ code: 0, stdout: '' });

      const second = await spawnHub({ dataDir, port: first.port });
      const after = hubApi(() => ({ url: second.url, token: second.tokens.operator }));
      expect((await after.approvalsOf(sid)).map((a) => a.status)).toEqual(['expired']);
      expect((await after.decide(sid, approvals[0]!.approvalId, { decision: 'allow' })).status).toBe(409);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
