import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import { getRun } from '../../hub/store/runs.js';
import { getSessionAnyNamespace } from '../../hub/store/sessions.js';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import { collectUpdates, connectDashboard, connectRunner, startSession, waitFor } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { fetchHistory, fetchSession } from './http.js';

let hub: TestHub;
let clock: ManualClock;
useTestHub((started) => (hub = started), () => ({ clock: (clock = new ManualClock(1_700_000_000_000)) }));

const runIdOf = async (sid: string) => (await getSessionAnyNamespace(hub.deps.store, sid))!.lastRun!.runId;
const sessionUpdates = (events: UpdateEvent[], sid: string) =>
  events.flatMap((e) => (e.body.t === 'update-session' && e.body.sid === sid ? [e.body] : []));

describe('session-start', () => {
  it('creates a running session with a live run, an active presence and a version-1 history row, and announces it', async () => {
    const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
    await dashboard.emitWithAck('subscribe', {});
    const seen = collectUpdates(dashboard);
    const runner = await connectRunner(hub.url, hub.tokens.runner);

    const ack = await runner.emitWithAck('session-start', { tag: 't1', flavor: 'claude', source: 'startup', metadata: { path: '/p', claudeSessionId: 'c1' }, pid: 42 });

    expect(ack.ok).toBe(true);
    if (!ack.ok) return;
    expect(ack.created).toBe(true);
    expect(ack.session).toMatchObject({
      tag: 't1',
      flavor: 'claude',
      parentSid: null,
      metadata: { version: 1, value: { path: '/p', claudeSessionId: 'c1' } },
      lifecycle: { state: 'running', lastRun: { status: 'running', endedAt: null, reason: null } },
      presence: { active: true, thinking: false },
      currentTurn: null,
    });
    expect(await getRun(hub.deps.store, await runIdOf(ack.session.sid))).toMatchObject({ status: 'running', pid: 42 });
    expect(await fetchHistory(hub, ack.session.sid)).toEqual([
      { version: 1, at: clock.now(), by: 'runner', carried: [], cleared: [], dropped: [], metadata: { path: '/p', claudeSessionId: 'c1' } },
    ]);
    await waitFor(() => seen.some((e) => e.body.t === 'session-created'), 2000, 'session-created');
    expect(seen.find((e) => e.body.t === 'session-created')!.body).toMatchObject({ sid: ack.session.sid, session: { tag: 't1' } });
  });

  it('gets an existing session by tag: same sid, a new run, the old live run ended as interrupted', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const first = await startSession(runner, { tag: 'same' });
    const firstRun = await runIdOf(first.sid);

    const ack = await runner.emitWithAck('session-start', { tag: 'same', flavor: 'claude', source: 'resume' });

    expect(ack.ok && ack.created).toBe(false);
    expect(ack.ok && ack.session.sid).toBe(first.sid);
    expect(await runIdOf(first.sid)).not.toBe(firstRun);
    expect(await getRun(hub.deps.store, firstRun)).toMatchObject({ status: 'interrupted', reason: 'superseded_by_new_run' });
    expect(ack.ok && ack.session.lifecycle.lastRun?.status).toBe('running');
    expect(ack.ok && ack.session.metadata.value.claudeSessionId).toBe('claude-abc');
  });

  it('applies metadata sent for an existing session as a merge patch that cannot erase a token', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const first = await startSession(runner, { tag: 'patchy' });
    const ack = await runner.emitWithAck('session-start', { tag: 'patchy', flavor: 'claude', source: 'resume', metadata: { title: 'x' } });
    expect(ack.ok && ack.session.metadata).toEqual({ version: 2, value: { ...first.metadata.value, title: 'x' } });
  });

  for (const [state, end] of [
    ['ended', (r: Awaited<ReturnType<typeof connectRunner>>, sid: string) => r.emitWithAck('session-end', { sid, reason: 'completed' })],
    ['archived', (r: Awaited<ReturnType<typeof connectRunner>>, sid: string) => r.emitWithAck('session-archive', { sid, reason: 'done' })],
    [
      'idle',
      async () => {
        clock.advance(hub.deps.config.idleMs + 1);
        await hub.sweepNow();
      },
    ],
  ] as const) {
    it(`reopens an ${state} session: running again, by runner, reason = source, with a new live run`, async () => {
      const runner = await connectRunner(hub.url, hub.tokens.runner);
      const session = await startSession(runner, { tag: `reopen-${state}` });
      await end(runner, session.sid);
      expect((await fetchSession(hub, session.sid)).lifecycle.state).toBe(state);
      const watcher = await connectRunner(hub.url, hub.tokens.runner);
      await watcher.emitWithAck('session-join', { sid: session.sid });
      const seen = collectUpdates(watcher);
      clock.advance(1000);

      const ack = await runner.emitWithAck('session-start', { tag: `reopen-${state}`, flavor: 'claude', source: 'resume' });

      expect(ack.ok && ack.created).toBe(false);
      expect(ack.ok && ack.session.lifecycle).toMatchObject({ state: 'running', since: clock.now(), reason: 'resume', by: 'runner', lastRun: { status: 'running' } });
      expect(ack.ok && ack.session.metadata.value.claudeSessionId).toBe('claude-abc');
      await waitFor(() => sessionUpdates(seen, session.sid).some((b) => b.lifecycle?.state === 'running'), 2000, 'lifecycle broadcast');
    });
  }

  for (const source of ['clear', 'compact'] as const) {
    it(`links a ${source} child to its parent: child.parentSid, parent's hub-owned hubSupersededBy, broadcast`, async () => {
      const runner = await connectRunner(hub.url, hub.tokens.runner);
      const parent = await startSession(runner, { tag: `parent-${source}` });
      const watcher = await connectRunner(hub.url, hub.tokens.runner);
      await watcher.emitWithAck('session-join', { sid: parent.sid });
      const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
      await dashboard.emitWithAck('subscribe', { sids: [parent.sid] });
      const roomSeen = collectUpdates(watcher);
      const dashSeen = collectUpdates(dashboard);

      const ack = await runner.emitWithAck('session-start', { tag: `child-${source}`, flavor: 'claude', source, parentSid: parent.sid, metadata: { claudeSessionId: 'c2' } });

      expect(ack.ok && ack.created).toBe(true);
      if (!ack.ok) return;
      expect(ack.session.parentSid).toBe(parent.sid);
      const storedParent = await fetchSession(hub, parent.sid);
      expect(storedParent.metadata).toEqual({ version: 2, value: { ...parent.metadata.value, hubSupersededBy: ack.session.sid } });
      expect((await fetchHistory(hub, parent.sid)).at(-1)).toMatchObject({ version: 2, by: 'hub', carried: [], cleared: [], dropped: [] });
      for (const seen of [roomSeen, dashSeen]) {
        await waitFor(() => sessionUpdates(seen, parent.sid).some((b) => b.metadata?.value.hubSupersededBy === ack.session.sid), 2000, 'parent broadcast');
      }
    });
  }

  it('keeps hubSupersededBy out of a runner write: the hub owns it', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const parent = await startSession(runner, { tag: 'p' });
    const child = await startSession(runner, { tag: 'c', source: 'clear', parentSid: parent.sid });
    const write = await runner.emitWithAck('update-metadata', { sid: parent.sid, expectedVersion: 2, metadata: { hubSupersededBy: 'forged', title: 't' } });
    expect(write).toMatchObject({ result: 'success', metadata: { hubSupersededBy: child.sid, title: 't' } });
    const clear = await runner.emitWithAck('update-metadata', { sid: parent.sid, expectedVersion: 3, patch: { hubSupersededBy: null } });
    expect(clear).toMatchObject({ result: 'success', metadata: { hubSupersededBy: child.sid } });
  });

  it('answers not_found for a clear whose parent does not exist, or lives in another namespace, and creates nothing', async () => {
    const other = await connectRunner(hub.url, hub.tokens.otherRunner);
    const foreign = await startSession(other, { tag: 'foreign' });
    const runner = await connectRunner(hub.url, hub.tokens.runner);

    for (const parentSid of ['no-such-session', foreign.sid]) {
      const ack = await runner.emitWithAck('session-start', { tag: `orphan-${parentSid}`, flavor: 'claude', source: 'clear', parentSid });
      expect(ack).toEqual({ ok: false, error: { code: 'not_found', message: expect.any(String) } });
    }
    const list = await fetch(`${hub.url}/api/sessions`, { headers: { authorization: `Bearer ${hub.tokens.runner}` } });
    expect((await list.json()).sessions).toEqual([]);
    expect((await fetchSessionAs(foreign.sid)).metadata.value.hubSupersededBy).toBeUndefined();
  });

  for (const source of ['startup', 'resume'] as const) {
    it(`ignores parentSid for source ${source}, even one that does not exist`, async () => {
      const runner = await connectRunner(hub.url, hub.tokens.runner);
      const parent = await startSession(runner, { tag: `p-${source}` });
      for (const parentSid of [parent.sid, 'no-such-session']) {
        const ack = await runner.emitWithAck('session-start', { tag: `c-${source}-${parentSid}`, flavor: 'claude', source, parentSid });
        expect(ack.ok && ack.session.parentSid).toBeNull();
      }
      expect((await fetchSession(hub, parent.sid)).metadata).toEqual(parent.metadata);
    });
  }
});

describe('session-join', () => {
  it('rejoins a runner to its session room, answers the snapshot and not_found for unknown or foreign sessions', async () => {
    const first = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(first);
    const second = await connectRunner(hub.url, hub.tokens.runner);
    const ack = await second.emitWithAck('session-join', { sid: session.sid });
    expect(ack.ok && ack.session.sid).toBe(session.sid);
    const seen = collectUpdates(second);
    await first.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'hi' });
    await waitFor(() => seen.some((e) => e.body.t === 'turn'), 2000, 'turn broadcast to the joined runner');

    expect(await second.emitWithAck('session-join', { sid: 'nope' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    const foreign = await connectRunner(hub.url, hub.tokens.otherRunner);
    expect(await foreign.emitWithAck('session-join', { sid: session.sid })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });
});

async function fetchSessionAs(sid: string) {
  const response = await fetch(`${hub.url}/api/sessions/${sid}`, { headers: { authorization: `Bearer ${hub.tokens.otherRunner}` } });
  return response.json();
}
