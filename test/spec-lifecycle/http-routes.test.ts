/**
 * Spec section 11 route by route and role by role, and the archive's effects (sections 6, 7, 11):
 * "Reads need any token of the namespace; resume and archive need a runner or admin token",
 * "POST .../archive { reason } — lifecycle archived by user; a live run ends as cancelled and its
 * runner sees the change; answers the SessionSnapshot".
 */
import { describe, expect, it } from 'vitest';
import { collectUpdates, connectRunner, startSession, waitFor, type RunnerSocket } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { api } from '../resume/http.js';
import { expectTokenNeverRemoved, fetchTurns } from '../lifecycle/http.js';

let hub: TestHub;
let runner: RunnerSocket;
useTestHub(async (started) => {
  hub = started;
  runner = await connectRunner(hub.url, hub.tokens.runner);
});

const archive = (token: string | undefined, sid: string, body: unknown = { reason: 'tidy up' }) => api(hub.url, token, 'POST', `/api/sessions/${sid}/archive`, body);

describe('spec 11: who may read', () => {
  it('every role of the namespace reads the list, a snapshot, the history and the turns; another tenant gets 404 / an empty list', async () => {
    const session = await startSession(runner);
    await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'hello' });
    const reads = [`/api/sessions/${session.sid}`, `/api/sessions/${session.sid}/history`, `/api/sessions/${session.sid}/turns`];
    for (const token of [hub.tokens.dashboard, hub.tokens.runner, hub.tokens.admin]) {
      const list = await api(hub.url, token, 'GET', '/api/sessions');
      expect(list.status).toBe(200);
      expect(list.body).toEqual({ sessions: [expect.objectContaining({ sid: session.sid })], nextCursor: null });
      for (const path of reads) expect((await api(hub.url, token, 'GET', path)).status).toBe(200);
    }
    expect((await api(hub.url, hub.tokens.dashboard, 'GET', reads[1]!)).body).toMatchObject({ sid: session.sid, history: [{ version: 1 }] });
    expect((await api(hub.url, hub.tokens.dashboard, 'GET', reads[2]!)).body).toEqual([expect.objectContaining({ prompt: 'hello', activities: [] })]);

    for (const token of [hub.tokens.otherRunner, hub.tokens.otherDashboard]) {
      expect((await api(hub.url, token, 'GET', '/api/sessions')).body).toEqual({ sessions: [], nextCursor: null });
      for (const path of reads) expect(await api(hub.url, token, 'GET', path)).toEqual({ status: 404, body: { error: 'session_not_found', message: expect.any(String) } });
    }
  });
});

describe('spec 11: POST /api/sessions/:sid/archive', () => {
  it('by an admin token: archived by user, the live run cancelled, its open turn aborted; the answer is the stored snapshot', async () => {
    const session = await startSession(runner);
    const turn = await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'work' });
    const seen = collectUpdates(runner);
    const answer = await archive(hub.tokens.admin, session.sid);
    expect(answer.status).toBe(200);
    expect(answer.body.lifecycle).toMatchObject({ state: 'archived', reason: 'tidy up', by: 'user', lastRun: { status: 'cancelled' } });
    expect(answer.body.resume).toEqual({ available: true, safe: false, tokenKey: 'claudeSessionId', reason: 'last_run_cancelled' });
    expect(answer.body).toEqual((await api(hub.url, hub.tokens.dashboard, 'GET', `/api/sessions/${session.sid}`)).body);
    expect((await fetchTurns(hub, session.sid)).map((t) => [t.turnId, t.status])).toEqual([[turn.ok ? turn.turnId : '', 'aborted']]);
    await waitFor(() => seen.some((e) => e.body.t === 'turn' && e.body.turn.status === 'aborted'), 2000, 'the runner hears its turn aborted');
    await expectTokenNeverRemoved(hub, session.sid, 'claudeSessionId', 'claude-abc');
  });

  it('of a session whose run already ended leaves that run as it ended: a successful one stays safe to resume', async () => {
    const session = await startSession(runner);
    await runner.emitWithAck('session-end', { sid: session.sid, reason: 'completed' });
    const answer = await archive(hub.tokens.runner, session.sid);
    expect(answer.body.lifecycle).toMatchObject({ state: 'archived', by: 'user', lastRun: { status: 'success', reason: 'completed' } });
    expect(answer.body.resume).toEqual({ available: true, safe: true, tokenKey: 'claudeSessionId', reason: null });
    expect((await api(hub.url, hub.tokens.runner, 'POST', `/api/sessions/${session.sid}/resume`, {})).status).toBe(200);
  });

  it('answers 403 to a dashboard token, 401 without a token, 404 for another tenant, 400 without a reason, and changes nothing', async () => {
    const session = await startSession(runner);
    expect(await archive(hub.tokens.dashboard, session.sid)).toEqual({ status: 403, body: { error: 'forbidden', message: expect.any(String) } });
    expect(await archive(undefined, session.sid)).toEqual({ status: 401, body: { error: 'unauthorized', message: expect.any(String) } });
    expect(await archive(hub.tokens.otherRunner, session.sid)).toEqual({ status: 404, body: { error: 'session_not_found', message: expect.any(String) } });
    expect(await archive(hub.tokens.runner, session.sid, {})).toEqual({ status: 400, body: { error: 'invalid_payload', message: expect.stringContaining('reason') } });
    const stored = await api(hub.url, hub.tokens.runner, 'GET', `/api/sessions/${session.sid}`);
    expect(stored.body.lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });
  });
});

describe('spec 6: a turn closed by ending a run through an archive', () => {
  it('is completed when the run succeeded (session-archive, reason completed), else aborted', async () => {
    for (const [reason, runStatus, turnStatus] of [['completed', 'success', 'completed'], ['cancelled', 'cancelled', 'aborted']] as const) {
      const session = await startSession(runner);
      await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'work' });
      const ack = await runner.emitWithAck('session-archive', { sid: session.sid, reason });
      expect(ack.ok && ack.session.lifecycle).toMatchObject({ state: 'archived', by: 'runner', lastRun: { status: runStatus } });
      expect((await fetchTurns(hub, session.sid)).map((t) => t.status)).toEqual([turnStatus]);
    }
  });
});
