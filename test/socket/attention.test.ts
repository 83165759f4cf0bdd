/**
 * Attention (docs/attention.md) on a real hub over real Socket.IO and HTTP: the `/runner` event
 * `attention` sets and clears it, acked; dashboards get it in `update-session` (`{ value }`) live
 * and by replay; GET /api/sessions and /:sid show it; the session's end clears it; bad inputs are
 * refused by name and change nothing. The SDK: RunnerClient.setAttention, DashboardClient's map.
 */
import { describe, expect, it } from 'vitest';
import { DashboardClient } from '../../shared/client/dashboard-client.js';
import { RunnerClient } from '../../shared/client/runner-client.js';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import type { ListSessionsResponse } from '../../shared/protocol/http.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { collectUpdates, connectDashboard, connectRunner, startSession, waitFor, type DashboardSocket, type RunnerSocket } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';

let hub: TestHub;
let runner: RunnerSocket;
useTestHub(async (started) => {
  hub = started;
  runner = await connectRunner(hub.url, hub.tokens.runner);
});

async function getJson<T>(path: string, token = hub.tokens.dashboard): Promise<T> {
  const response = await fetch(`${hub.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

async function subscribed(token = hub.tokens.dashboard, sinceSeq?: number): Promise<{ dashboard: DashboardSocket; updates: UpdateEvent[]; seq: number }> {
  const dashboard = await connectDashboard(hub.url, token);
  const updates = collectUpdates(dashboard);
  const ack = await dashboard.emitWithAck('subscribe', sinceSeq === undefined ? {} : { sinceSeq });
  if (!ack.ok) throw new Error(ack.error.message);
  return { dashboard, updates, seq: ack.seq };
}

const attentionBodies = (updates: UpdateEvent[]) =>
  updates.flatMap((event) => (event.body.t === 'update-session' && event.body.attention ? [event.body.attention.value] : []));

describe('the /runner event attention', () => {
  it('sets, repeats and clears attention: acked, broadcast as { value }, and shown by GET /api/sessions and /:sid', async () => {
    const session = await startSession(runner);
    expect(session.attention).toBeNull();
    const { updates } = await subscribed();

    const set = await runner.emitWithAck('attention', { sid: session.sid, kind: 'question', message: 'Which branch?' });
    expect(set).toEqual({ ok: true, attention: { kind: 'question', since: expect.any(Number), message: 'Which branch?', tool: null } });
    if (!set.ok || !set.attention) throw new Error('no attention');
    await waitFor(() => attentionBodies(updates).length === 1, 3000, 'attention broadcast');
    expect(attentionBodies(updates)).toEqual([set.attention]);

    const one = await getJson<SessionSnapshot>(`/api/sessions/${session.sid}`);
    expect(one.attention).toEqual(set.attention);
    const list = await getJson<ListSessionsResponse>('/api/sessions');
    expect(list.sessions.find((s) => s.sid === session.sid)!.attention).toEqual(set.attention);
    // attention is not an update of the session: updatedAt stays
    expect(one.updatedAt).toBe(session.updatedAt);

    // the same attention again: nothing written, nothing broadcast
    expect(await runner.emitWithAck('attention', { sid: session.sid, kind: 'question', message: 'Which branch?' })).toEqual(set);
    // the same kind with new text keeps its since (how long it has waited)
    const again = await runner.emitWithAck('attention', { sid: session.sid, kind: 'question', message: 'Main or dev?' });
    expect(again).toEqual({ ok: true, attention: { ...set.attention, message: 'Main or dev?' } });
    const permission = await runner.emitWithAck('attention', { sid: session.sid, kind: 'permission', tool: 'Bash' });
    expect(permission).toMatchObject({ ok: true, attention: { kind: 'permission', tool: 'Bash', message: null } });

    expect(await runner.emitWithAck('attention', { sid: session.sid, kind: null })).toEqual({ ok: true, attention: null });
    await waitFor(() => attentionBodies(updates).length === 4, 3000, 'four attention changes');
    expect(attentionBodies(updates).map((a) => a && a.kind)).toEqual(['question', 'question', 'permission', null]);
    expect((await getJson<SessionSnapshot>(`/api/sessions/${session.sid}`)).attention).toBeNull();
    // other update-session bodies carry attention: null (unchanged)
    await runner.emitWithAck('session-alive', { sid: session.sid, time: Date.now(), thinking: true });
    await waitFor(() => updates.some((e) => e.body.t === 'update-session' && e.body.presence?.thinking === true), 3000, 'presence update');
    const presence = updates.find((e) => e.body.t === 'update-session' && e.body.presence?.thinking === true)!;
    expect(presence.body).toMatchObject({ attention: null });
  });

  it('is cleared when the session ends or is archived, in the same update as the lifecycle', async () => {
    for (const end of ['session-end', 'session-archive'] as const) {
      const session = await startSession(runner);
      await runner.emitWithAck('attention', { sid: session.sid, kind: 'done', message: 'finished' });
      const { updates } = await subscribed();
      await runner.emitWithAck(end, { sid: session.sid, reason: 'exit' });
      await waitFor(() => updates.some((e) => e.body.t === 'update-session' && e.body.lifecycle !== null), 3000, 'lifecycle update');
      const body = updates.find((e) => e.body.t === 'update-session' && e.body.lifecycle !== null)!.body;
      expect(body).toMatchObject({ lifecycle: { state: end === 'session-end' ? 'ended' : 'archived' }, attention: { value: null } });
      expect((await getJson<SessionSnapshot>(`/api/sessions/${session.sid}`)).attention).toBeNull();
    }
  });

  it('replays like every change: a dashboard back from lastSeq gets the attention it missed', async () => {
    const session = await startSession(runner);
    const { dashboard, seq } = await subscribed();
    dashboard.disconnect();
    await runner.emitWithAck('attention', { sid: session.sid, kind: 'failed', message: 'API Error: Rate limit reached' });
    const back = await subscribed(hub.tokens.dashboard, seq);
    await waitFor(() => attentionBodies(back.updates).length === 1, 3000, 'replayed attention');
    expect(attentionBodies(back.updates)[0]).toMatchObject({ kind: 'failed', message: 'API Error: Rate limit reached' });
  });

  it('refuses bad input by name and changes nothing: bad kind, oversized message, empty tool, unknown or foreign session', async () => {
    const session = await startSession(runner);
    await runner.emitWithAck('attention', { sid: session.sid, kind: 'done' });
    const before = await getJson<SessionSnapshot>(`/api/sessions/${session.sid}`);
    const { updates } = await subscribed();
    const raw = runner as unknown as { emitWithAck(event: string, payload: unknown): Promise<unknown> };
    const refusals: [unknown, string, RegExp][] = [
      [{ sid: session.sid, kind: 'sleeping' }, 'invalid_payload', /kind/],
      [{ sid: session.sid }, 'invalid_payload', /kind/],
      [{ sid: session.sid, kind: 'question', message: 'x'.repeat(4097) }, 'invalid_payload', /message.*4096/],
      [{ sid: session.sid, kind: 'question', message: 42 }, 'invalid_payload', /message/],
      [{ sid: session.sid, kind: 'permission', tool: '' }, 'invalid_payload', /tool/],
      [{ sid: '', kind: 'done' }, 'invalid_payload', /sid/],
      [{ sid: 'no-such-session', kind: 'done' }, 'not_found', /no-such-session/],
      ['not an object', 'invalid_payload', /./],
    ];
    for (const [payload, code, message] of refusals) {
      expect(await raw.emitWithAck('attention', payload), JSON.stringify(payload)).toEqual({ ok: false, error: { code, message: expect.stringMatching(message) } });
    }
    const foreign = await connectRunner(hub.url, hub.tokens.otherRunner);
    expect(await foreign.emitWithAck('attention', { sid: session.sid, kind: null })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    // exactly 4096 characters is admitted (on another session: this one must stay as it was)
    const other = await startSession(runner);
    expect(await runner.emitWithAck('attention', { sid: other.sid, kind: 'done', message: 'y'.repeat(4096) })).toMatchObject({ ok: true });
    await waitFor(() => attentionBodies(updates).length === 1, 3000, 'the accepted change');
    expect(updates.filter((e) => e.body.sid === session.sid)).toEqual([]);
    expect(await getJson<SessionSnapshot>(`/api/sessions/${session.sid}`)).toEqual(before);
  });
});

describe('the SDK', () => {
  it('RunnerClient.setAttention sets and clears; DashboardClient keeps attention in its map', async () => {
    const sdkRunner = await RunnerClient.connect({ url: hub.url, token: hub.tokens.runner, requestTimeoutMs: 2000 });
    const dashboard = await DashboardClient.connect({ url: hub.url, token: hub.tokens.dashboard, requestTimeoutMs: 2000 });
    try {
      const { session } = await sdkRunner.startSession({ tag: 'sdk', flavor: 'claude', source: 'startup' });
      await dashboard.subscribe();
      const attention = await sdkRunner.setAttention(session.sid, 'permission', { tool: 'Edit', message: 'Edit src/app.ts?' });
      expect(attention).toMatchObject({ kind: 'permission', tool: 'Edit', message: 'Edit src/app.ts?' });
      expect(sdkRunner.session(session.sid)!.attention).toEqual(attention);
      await waitFor(() => dashboard.sessions.get(session.sid)?.attention?.kind === 'permission', 3000, 'dashboard map');
      expect(dashboard.sessions.get(session.sid)!.attention).toEqual(attention);
      expect(await sdkRunner.setAttention(session.sid, null)).toBeNull();
      await waitFor(() => dashboard.sessions.get(session.sid)?.attention === null, 3000, 'dashboard map cleared');
      await expect(sdkRunner.setAttention(session.sid, 'question', { message: 'z'.repeat(5000) })).rejects.toMatchObject({ code: 'invalid_payload' });
    } finally {
      await sdkRunner.close();
      await dashboard.close();
    }
  });
});
