import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import { getSessionAnyNamespace } from '../../hub/store/sessions.js';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import type { Presence } from '../../shared/protocol/session.js';
import { collectUpdates, connectDashboard, connectRunner, startSession, waitFor, type DashboardSocket } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { fetchSession } from './http.js';

let hub: TestHub;
let clock: ManualClock;
let dashboard: DashboardSocket;
let dashSeen: UpdateEvent[];
useTestHub(async (started) => {
  hub = started;
  dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
  await dashboard.emitWithAck('subscribe', {});
  dashSeen = collectUpdates(dashboard);
}, () => ({ clock: (clock = new ManualClock(1_700_000_000_000)) }));

const stored = async (sid: string) => (await getSessionAnyNamespace(hub.deps.store, sid))!;
const presenceUpdates = (sid: string): Presence[] =>
  dashSeen.flatMap((e) => (e.body.t === 'update-session' && e.body.sid === sid && e.body.presence ? [e.body.presence] : []));

describe('presence on disconnect', () => {
  it('dropping the last runner socket makes the session inactive at once and never ends it', async () => {
    const a = await connectRunner(hub.url, hub.tokens.runner);
    const b = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(a);
    await b.emitWithAck('session-join', { sid: session.sid });

    b.disconnect();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await fetchSession(hub, session.sid)).presence.active).toBe(true);

    a.disconnect();
    await waitFor(() => presenceUpdates(session.sid).some((p) => !p.active), 2000, 'inactive broadcast');
    const after = await fetchSession(hub, session.sid);
    expect(after.presence).toMatchObject({ active: false, thinking: false });
    expect(after.lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });

    // the run's grace has started, but nothing ends it before the grace is over
    clock.advance(hub.deps.config.runGraceMs - 1);
    await hub.sweepNow();
    expect((await fetchSession(hub, session.sid)).lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });
  });

  it('a runner that rejoins makes the session active again and stops the grace', async () => {
    const a = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(a);
    a.disconnect();
    await waitFor(async () => (await stored(session.sid)).presence.active === false, 2000, 'inactive');
    clock.advance(1000);
    const back = await connectRunner(hub.url, hub.tokens.runner);
    const ack = await back.emitWithAck('session-join', { sid: session.sid });
    expect(ack.ok && ack.session.presence).toEqual({ active: true, activeAt: clock.now(), thinking: false });
    await waitFor(() => presenceUpdates(session.sid).at(-1)?.active === true, 2000, 'active broadcast');
    clock.advance(hub.deps.config.runGraceMs * 10);
    await hub.sweepNow();
    expect((await fetchSession(hub, session.sid)).lifecycle.lastRun?.status).toBe('running');
  });
});

describe('session-alive', () => {
  it('a connected socket with no heartbeat goes inactive after the alive timeout (sweep); a heartbeat brings it back', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner);
    clock.advance(hub.deps.config.aliveTimeoutMs - 1);
    expect((await hub.sweepNow()).sessionsInactive).toBe(0);
    await runner.emitWithAck('session-alive', { sid: session.sid, time: clock.now() });
    clock.advance(hub.deps.config.aliveTimeoutMs - 1);
    expect((await hub.sweepNow()).sessionsInactive).toBe(0);
    clock.advance(1);
    expect((await hub.sweepNow()).sessionsInactive).toBe(1);

    await waitFor(() => presenceUpdates(session.sid).some((p) => !p.active), 2000, 'inactive broadcast');
    expect((await fetchSession(hub, session.sid)).lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });

    clock.advance(5);
    expect(await runner.emitWithAck('session-alive', { sid: session.sid, time: clock.now() })).toEqual({ ok: true });
    await waitFor(() => presenceUpdates(session.sid).at(-1)?.active === true, 2000, 'active broadcast');
    expect(presenceUpdates(session.sid).at(-1)).toEqual({ active: true, activeAt: clock.now(), thinking: false });
  });

  it('reports the thinking flag, broadcasting only when it changes', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner);
    await runner.emitWithAck('session-alive', { sid: session.sid, time: clock.now(), thinking: true });
    await runner.emitWithAck('session-alive', { sid: session.sid, time: clock.now(), thinking: true });
    await runner.emitWithAck('session-alive', { sid: session.sid, time: clock.now(), thinking: false });
    await waitFor(() => presenceUpdates(session.sid).length === 2, 2000, 'two thinking broadcasts');
    expect(presenceUpdates(session.sid).map((p) => p.thinking)).toEqual([true, false]);
  });

  it('counts a time in the future as now, ignores one older than 10 minutes, and never moves alive_at backwards', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner);
    clock.advance(1000);
    await runner.emitWithAck('session-alive', { sid: session.sid, time: clock.now() + 3_600_000 });
    expect((await stored(session.sid)).presence.aliveAt).toBe(clock.now());

    const before = (await stored(session.sid)).presence.aliveAt;
    await runner.emitWithAck('session-alive', { sid: session.sid, time: clock.now() - 5_000 });
    expect((await stored(session.sid)).presence.aliveAt).toBe(before);

    // inactive, then a heartbeat from 10 minutes and a bit ago: ignored, stays inactive
    clock.advance(hub.deps.config.aliveTimeoutMs + 1);
    await hub.sweepNow();
    expect((await stored(session.sid)).presence.active).toBe(false);
    await runner.emitWithAck('session-alive', { sid: session.sid, time: clock.now() - 10 * 60_000 - 1, thinking: true });
    expect((await stored(session.sid)).presence).toMatchObject({ active: false, thinking: false, aliveAt: before });
  });

  it('is not activity: heartbeats alone cannot keep a session from going idle', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner);
    const activityAt = (await stored(session.sid)).lastActivityAt;
    const step = hub.deps.config.aliveTimeoutMs / 2;
    for (let t = 0; t <= hub.deps.config.idleMs; t += step * 20) {
      clock.advance(step * 20);
      await runner.emitWithAck('session-alive', { sid: session.sid, time: clock.now() });
    }
    expect((await stored(session.sid)).lastActivityAt).toBe(activityAt);
    await hub.sweepNow();
    const after = await fetchSession(hub, session.sid);
    expect(after.lifecycle).toMatchObject({ state: 'idle', by: 'hub', lastRun: { status: 'running' } });
    expect(after.presence.active).toBe(true);
  });

  it('works without an ack (volatile) and answers not_found by a server error event when unacked', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner);
    clock.advance(500);
    runner.volatile.emit('session-alive', { sid: session.sid, time: clock.now(), thinking: true });
    await waitFor(async () => (await stored(session.sid)).presence.thinking, 2000, 'volatile heartbeat applied');
    const errors: unknown[] = [];
    runner.on('error' as never, (body: unknown) => void errors.push(body));
    runner.emit('session-alive', { sid: 'nope', time: clock.now() });
    await waitFor(() => errors.length === 1, 2000, 'error event');
    expect(errors[0]).toMatchObject({ code: 'not_found', event: 'session-alive' });
  });
});
