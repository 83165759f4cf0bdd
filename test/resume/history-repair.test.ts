import { describe, expect, it } from 'vitest';
import { collectUpdates, connectDashboard, connectRunner, startSession, waitFor, type RunnerSocket } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { api, getSnapshot, postResume } from './http.js';

let hub: TestHub;
let runner: RunnerSocket;
useTestHub(async (started) => {
  hub = started;
  runner = await connectRunner(hub.url, hub.tokens.runner);
});

const repair = (sid: string, body?: unknown, token: string = hub.tokens.admin) => api(hub.url, token, 'POST', `/api/sessions/${sid}/repair`, body);
const history = async (sid: string) => (await api(hub.url, hub.tokens.dashboard, 'GET', `/api/sessions/${sid}/history`)).body;

/** A cursor session whose token changed once, then was cleared by a runner that sends null for every unset field. */
async function cursorSessionClearedByMistake() {
  const session = await startSession(runner, {
    flavor: 'cursor',
    metadata: { path: '/p', host: 'h', cursorSessionId: 'cur-1', cursorSessionProtocol: 'legacy', title: 'first' },
  });
  const patch = (expectedVersion: number, p: Record<string, unknown>) =>
    runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion, patch: p as never });
  expect(await patch(1, { cursorSessionId: 'cur-2', cursorSessionProtocol: 'acp' })).toMatchObject({ result: 'success', version: 2 });
  expect(await patch(2, { title: 'second' })).toMatchObject({ result: 'success', version: 3 });
  expect(await patch(3, { cursorSessionId: null, title: null })).toMatchObject({ result: 'success', version: 4 });
  await runner.emitWithAck('session-end', { sid: session.sid, reason: 'completed' });
  return session;
}

describe('GET /api/sessions/:sid/history', () => {
  it('lists every version oldest first with its writer and the carried, cleared and dropped keys', async () => {
    const session = await cursorSessionClearedByMistake();
    const sparse = await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 4, metadata: { lifecycleState: 'archived', archiveReason: 'Session crashed' } });
    expect(sparse.result).toBe('success');
    const body = await history(session.sid);
    expect(body.sid).toBe(session.sid);
    expect(body.history.map((h: any) => [h.version, h.by, h.carried, h.cleared, h.dropped])).toEqual([
      [1, 'runner', [], [], []],
      [2, 'runner', [], [], []],
      [3, 'runner', [], [], []],
      [4, 'runner', [], ['cursorSessionId'], ['cursorSessionProtocol']],
      [5, 'runner', ['path', 'host'], [], []],
    ]);
    expect(body.history[3].metadata).toEqual({ path: '/p', host: 'h' });
    expect(typeof body.history[0].at).toBe('number');
  });

  it('answers 404 for another tenant\'s session and 401 without a token', async () => {
    const session = await startSession(runner);
    expect((await api(hub.url, hub.tokens.otherDashboard, 'GET', `/api/sessions/${session.sid}/history`)).status).toBe(404);
    expect((await api(hub.url, undefined, 'GET', `/api/sessions/${session.sid}/history`)).status).toBe(401);
  });
});

describe('POST /api/sessions/:sid/repair', () => {
  it('restores the flavor token with the protocol of the same version, as one version by user, broadcast to the room and dashboards', async () => {
    const session = await cursorSessionClearedByMistake();
    expect(await postResume(hub.url, hub.tokens.runner, session.sid)).toMatchObject({ status: 409, body: { reason: 'no_token' } });
    const inRoom = await connectRunner(hub.url, hub.tokens.runner);
    await inRoom.emitWithAck('session-join', { sid: session.sid });
    const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
    await dashboard.emitWithAck('subscribe', { sids: [session.sid] });
    const roomSeen = collectUpdates(inRoom);
    const dashSeen = collectUpdates(dashboard);

    const answer = await repair(session.sid);
    expect(answer).toEqual({ status: 200, body: { restored: { cursorSessionId: 'cur-2', cursorSessionProtocol: 'acp' }, version: 5 } });

    const expected = { path: '/p', host: 'h', cursorSessionId: 'cur-2', cursorSessionProtocol: 'acp' };
    for (const seen of [roomSeen, dashSeen]) {
      await waitFor(() => seen.some((e) => e.body.t === 'update-session' && e.body.metadata !== null), 3000, 'repair broadcast');
      const update = seen.find((e) => e.body.t === 'update-session' && e.body.metadata !== null)!;
      expect(update.body.t === 'update-session' && update.body.metadata).toEqual({ version: 5, value: expected });
    }
    const last = (await history(session.sid)).history.at(-1);
    expect(last).toMatchObject({ version: 5, by: 'user', carried: [], cleared: [], dropped: [], metadata: expected });
    expect(await postResume(hub.url, hub.tokens.runner, session.sid)).toMatchObject({ status: 200, body: { token: 'cur-2', tokenKey: 'cursorSessionId' } });
  });

  it('restores the keys named, and writes nothing when there is nothing to restore', async () => {
    const session = await cursorSessionClearedByMistake();
    const named = await repair(session.sid, { keys: ['title', 'neverSet'] });
    expect(named).toEqual({ status: 200, body: { restored: { title: 'second' }, version: 5 } });

    const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
    await dashboard.emitWithAck('subscribe', { sids: [session.sid] });
    const seen = collectUpdates(dashboard);
    expect(await repair(session.sid, { keys: ['title'] })).toEqual({ status: 200, body: { restored: {}, version: 5 } });
    expect(await repair(session.sid, { keys: ['neverSet'] })).toEqual({ status: 200, body: { restored: {}, version: 5 } });
    // and the default with no body at all: the token, restored here
    expect(await repair(session.sid)).toMatchObject({ status: 200, body: { version: 6 } });
    expect(await repair(session.sid)).toEqual({ status: 200, body: { restored: {}, version: 6 } });
    await waitFor(() => seen.length > 0, 3000, 'the one write');
    const snapshot = (await getSnapshot(hub.url, hub.tokens.runner, session.sid)).body;
    expect(snapshot.metadata.version).toBe(6);
    expect((await history(session.sid)).history).toHaveLength(6);
    expect(seen.filter((e) => e.body.t === 'update-session' && e.body.metadata !== null).map((e) => e.body.t === 'update-session' && e.body.metadata?.version)).toEqual([6]);
  });

  it('is admin only: runner and dashboard tokens get 403, another tenant\'s admin 404', async () => {
    const session = await cursorSessionClearedByMistake();
    expect(await repair(session.sid, {}, hub.tokens.runner)).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    expect(await repair(session.sid, {}, hub.tokens.dashboard)).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    expect(await repair(session.sid, {}, hub.tokens.otherAdmin)).toMatchObject({ status: 404, body: { error: 'session_not_found' } });
    expect((await getSnapshot(hub.url, hub.tokens.runner, session.sid)).body.metadata.version).toBe(4);
  });
});
