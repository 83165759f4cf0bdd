import { describe, expect, it } from 'vitest';
import { connectRunner, startSession, type RunnerSocket } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { api, expectedFromStatus, getSnapshot, postResume } from './http.js';

let hub: TestHub;
let runner: RunnerSocket;
useTestHub(async (started) => {
  hub = started;
  runner = await connectRunner(hub.url, hub.tokens.runner);
});

/** The snapshot's `resume` must announce exactly what POST .../resume (safe) answers. */
async function expectSnapshotAgrees(sid: string): Promise<void> {
  const snapshot = await getSnapshot(hub.url, hub.tokens.dashboard, sid);
  const post = await postResume(hub.url, hub.tokens.runner, sid);
  const expected = expectedFromStatus(snapshot.body.resume);
  expect(post.status).toBe(expected.status);
  if (expected.error) expect(post.body).toMatchObject({ error: expected.error, reason: expected.reason });
}

async function endedSession(end: { reason?: string; status?: 'success' | 'failure' | 'cancelled' | 'interrupted' | 'crashed' }) {
  const session = await startSession(runner);
  const ack = await runner.emitWithAck('session-end', { sid: session.sid, ...end });
  expect(ack.ok).toBe(true);
  return session;
}

describe('POST /api/sessions/:sid/resume', () => {
  it('answers 200 with the token, path and last run after a successful run, for runner and admin tokens', async () => {
    const session = await endedSession({ reason: 'completed' });
    for (const token of [hub.tokens.runner, hub.tokens.admin]) {
      const answer = await postResume(hub.url, token, session.sid);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        sid: session.sid,
        flavor: 'claude',
        tokenKey: 'claudeSessionId',
        token: 'claude-abc',
        path: '/work/project',
        policy: 'safe',
        lastRun: { status: 'success', endedAt: expect.any(Number), reason: 'completed' },
      });
    }
    const noBody = await fetch(`${hub.url}/api/sessions/${session.sid}/resume`, { method: 'POST', headers: { authorization: `Bearer ${hub.tokens.runner}` } });
    expect(noBody.status).toBe(200);
    expect((await noBody.json()).policy).toBe('safe');
    const snapshot = await getSnapshot(hub.url, hub.tokens.dashboard, session.sid);
    expect(snapshot.body.resume).toEqual({ available: true, safe: true, tokenKey: 'claudeSessionId', reason: null });
  });

  it('answers resume_unavailable no_token when the flavor token is absent, cleared, or the flavor has none — force too', async () => {
    const absent = await startSession(runner, { metadata: { path: '/p' } });
    const unknown = await startSession(runner, { flavor: 'mystery-agent', metadata: { path: '/p', claudeSessionId: 'x' } });
    const cleared = await startSession(runner);
    await runner.emitWithAck('update-metadata', { sid: cleared.sid, expectedVersion: 1, patch: { claudeSessionId: null } });
    for (const sid of [absent.sid, unknown.sid, cleared.sid]) {
      await runner.emitWithAck('session-end', { sid, reason: 'completed' });
      for (const policy of ['safe', 'force'] as const) {
        const answer = await postResume(hub.url, hub.tokens.runner, sid, policy);
        expect(answer.status).toBe(409);
        expect(answer.body).toEqual({ error: 'resume_unavailable', reason: 'no_token', message: expect.any(String) });
      }
      await expectSnapshotAgrees(sid);
    }
    expect((await getSnapshot(hub.url, hub.tokens.runner, unknown.sid)).body.resume).toEqual({ available: false, safe: false, tokenKey: null, reason: 'no_token' });
  });

  it('answers resume_unsafe run_in_progress while a run is live, and force hands out the token', async () => {
    const session = await startSession(runner);
    const safe = await postResume(hub.url, hub.tokens.runner, session.sid);
    expect(safe.status).toBe(409);
    expect(safe.body).toEqual({ error: 'resume_unsafe', reason: 'run_in_progress', message: expect.stringContaining('force') });
    await expectSnapshotAgrees(session.sid);
    const forced = await postResume(hub.url, hub.tokens.runner, session.sid, 'force');
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({ token: 'claude-abc', policy: 'force', lastRun: { status: 'running', endedAt: null } });
  });

  it.each([
    [{ reason: 'error' }, 'last_run_failure'],
    [{ reason: 'crashed' }, 'last_run_failure'],
    [{ reason: 'terminated' }, 'last_run_cancelled'],
    [{ reason: 'cancelled' }, 'last_run_cancelled'],
    [{ status: 'interrupted' as const }, 'last_run_interrupted'],
    [{ status: 'crashed' as const }, 'last_run_crashed'],
    [{ status: 'failure' as const, reason: 'completed' }, 'last_run_failure'],
  ])('after session-end %j answers resume_unsafe %s under safe; force skips only that gate', async (end, reason) => {
    const session = await endedSession(end);
    const safe = await postResume(hub.url, hub.tokens.runner, session.sid, 'safe');
    expect(safe.status).toBe(409);
    expect(safe.body).toMatchObject({ error: 'resume_unsafe', reason });
    await expectSnapshotAgrees(session.sid);
    const forced = await postResume(hub.url, hub.tokens.runner, session.sid, 'force');
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({ token: 'claude-abc', policy: 'force', lastRun: { status: reason.replace('last_run_', '') } });
  });

  it('answers 404 session_not_found for an unknown sid and for another tenant\'s session', async () => {
    const session = await endedSession({ reason: 'completed' });
    const unknown = await postResume(hub.url, hub.tokens.runner, 'no-such-session');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'session_not_found', message: expect.any(String) });
    for (const token of [hub.tokens.otherRunner, hub.tokens.otherAdmin]) {
      const foreign = await postResume(hub.url, token, session.sid);
      expect(foreign).toEqual({ status: 404, body: { error: 'session_not_found', message: expect.any(String) } });
      expect((await api(hub.url, token, 'GET', `/api/sessions/${session.sid}`)).status).toBe(404);
    }
  });

  it('answers 401 without a valid token, 403 to a dashboard token, 400 to an unknown policy', async () => {
    const session = await endedSession({ reason: 'completed' });
    expect(await api(hub.url, undefined, 'POST', `/api/sessions/${session.sid}/resume`, {})).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
    expect(await api(hub.url, 'not-a-token', 'POST', `/api/sessions/${session.sid}/resume`, {})).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
    for (const token of [hub.tokens.dashboard, hub.tokens.otherDashboard]) {
      expect(await api(hub.url, token, 'POST', `/api/sessions/${session.sid}/resume`, {})).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    }
    expect(await api(hub.url, hub.tokens.runner, 'POST', `/api/sessions/${session.sid}/resume`, { policy: 'yolo' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_payload' },
    });
  });
});
