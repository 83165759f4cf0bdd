import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import { collectUpdates, connectDashboard, connectRunner, startSession, waitFor, type RunnerSocket } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { expectTokenNeverRemoved, fetchSession, fetchTurns } from './http.js';

let hub: TestHub;
let clock: ManualClock;
let dashSeen: UpdateEvent[];
useTestHub(async (started) => {
  hub = started;
  const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
  await dashboard.emitWithAck('subscribe', {});
  dashSeen = collectUpdates(dashboard);
}, () => ({ clock: (clock = new ManualClock(1_700_000_000_000)) }));

const cfg = () => hub.deps.config;
const bodiesFor = (events: UpdateEvent[], sid: string) => events.filter((e) => e.body.sid === sid).map((e) => e.body);

/** A runner in the session's room that did not cause the sweep's change, to check room broadcasts. */
async function watch(sid: string) {
  const watcher = await connectRunner(hub.url, hub.tokens.runner);
  await watcher.emitWithAck('session-join', { sid });
  return collectUpdates(watcher);
}

describe('sweep: turn timeout', () => {
  it('closes a turn open longer than the timeout as timeout, and broadcasts it', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner);
    const roomSeen = await watch(session.sid);
    const ack = await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'long job' });
    const turnId = ack.ok ? ack.turnId : '';

    clock.advance(cfg().turnTimeoutMs - 1);
    expect((await hub.sweepNow()).turnsTimedOut).toBe(0);
    clock.advance(2);
    expect((await hub.sweepNow()).turnsTimedOut).toBe(1);

    expect((await fetchTurns(hub, session.sid)).map((t) => [t.turnId, t.status, t.closedAt])).toEqual([[turnId, 'timeout', clock.now()]]);
    expect((await fetchSession(hub, session.sid)).currentTurn).toBeNull();
    for (const events of [roomSeen, dashSeen]) {
      await waitFor(() => bodiesFor(events, session.sid).some((b) => b.t === 'turn' && b.turn.status === 'timeout'), 2000, 'timeout broadcast');
    }
    // the session itself is untouched, and a later prompt opens a fresh turn
    expect((await fetchSession(hub, session.sid)).lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });
    expect((await hub.sweepNow()).turnsTimedOut).toBe(0);
  });
});

describe('sweep: alive timeout', () => {
  it('marks a silent session inactive and broadcasts presence, never touching the lifecycle', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner);
    const roomSeen = await watch(session.sid);
    clock.advance(cfg().aliveTimeoutMs);
    expect((await hub.sweepNow()).sessionsInactive).toBe(1);
    for (const events of [roomSeen, dashSeen]) {
      await waitFor(
        () => bodiesFor(events, session.sid).some((b) => b.t === 'update-session' && b.presence?.active === false && b.lifecycle === null),
        2000,
        'presence broadcast',
      );
    }
    expect((await hub.sweepNow()).sessionsInactive).toBe(0);
  });
});

describe('sweep: lost runs', () => {
  async function lostSession(runner: RunnerSocket) {
    const session = await startSession(runner);
    await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'mid-turn' });
    // watched by the dashboard only: a watching runner would be bound to the session and keep the run
    runner.disconnect();
    await waitFor(() => bodiesFor(dashSeen, session.sid).some((b) => b.t === 'update-session' && b.presence?.active === false), 2000, 'disconnect');
    return { session };
  }

  it('ends a run whose runner did not come back within the grace as interrupted; lifecycle ended, runner_lost, by hub', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const { session } = await lostSession(runner);
    clock.advance(cfg().runGraceMs - 1);
    expect((await hub.sweepNow()).runsInterrupted).toBe(0);
    clock.advance(1);
    expect((await hub.sweepNow()).runsInterrupted).toBe(1);

    const after = await fetchSession(hub, session.sid);
    expect(after.lifecycle).toMatchObject({
      state: 'ended',
      reason: 'runner_lost',
      by: 'hub',
      since: clock.now(),
      lastRun: { status: 'interrupted', reason: 'runner_lost', endedAt: clock.now() },
    });
    expect(after.resume).toEqual({ available: true, safe: false, tokenKey: 'claudeSessionId', reason: 'last_run_interrupted' });
    expect((await fetchTurns(hub, session.sid)).map((t) => t.status)).toEqual(['aborted']);
    await waitFor(() => bodiesFor(dashSeen, session.sid).some((b) => b.t === 'update-session' && b.lifecycle?.state === 'ended'), 2000, 'ended broadcast');
    await expectTokenNeverRemoved(hub, session.sid, 'claudeSessionId', 'claude-abc');
    expect((await hub.sweepNow()).runsInterrupted).toBe(0);
  });

  it('ends an idle session whose runner is lost too, and leaves no one else untouched', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const staying = await connectRunner(hub.url, hub.tokens.runner);
    const kept = await startSession(staying);
    const { session } = await lostSession(runner);
    clock.advance(cfg().runGraceMs);
    await staying.emitWithAck('session-alive', { sid: kept.sid, time: clock.now() });
    await hub.sweepNow();
    expect((await fetchSession(hub, session.sid)).lifecycle.state).toBe('ended');
    expect((await fetchSession(hub, kept.sid)).lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });
  });

  it('a session-start of the same session within the grace is coming back: the lost run is replaced, nothing is lost', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const { session } = await lostSession(runner);
    clock.advance(cfg().runGraceMs - 1);
    const back = await connectRunner(hub.url, hub.tokens.runner);
    await back.emitWithAck('session-start', { tag: session.tag, flavor: 'claude', source: 'resume' });
    clock.advance(cfg().runGraceMs);
    await back.emitWithAck('session-alive', { sid: session.sid, time: clock.now() });
    await hub.sweepNow();
    expect((await fetchSession(hub, session.sid)).lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });
  });
});

describe('sweep: idle', () => {
  it('idles a running session after the idle time with no activity; writes are activity, hub writes and heartbeats are not', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner);
    const child = await startSession(runner, { tag: 'child', source: 'compact', parentSid: session.sid });
    const roomSeen = await watch(session.sid);

    clock.advance(cfg().idleMs - 10);
    await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 2, patch: { title: 'still here' } });
    await runner.emitWithAck('prompt-submit', { sid: child.sid, prompt: 'x' });
    clock.advance(10);
    await hub.sweepNow();
    expect((await fetchSession(hub, session.sid)).lifecycle.state).toBe('running');

    clock.advance(cfg().idleMs);
    await runner.emitWithAck('turn-stop', { sid: child.sid });
    await runner.emitWithAck('session-alive', { sid: session.sid, time: clock.now() });
    const report = await hub.sweepNow();
    expect(report.sessionsIdled).toBe(1);
    const idle = await fetchSession(hub, session.sid);
    expect(idle.lifecycle).toMatchObject({ state: 'idle', reason: 'no_activity', by: 'hub', since: clock.now(), lastRun: { status: 'running' } });
    expect(idle.presence.active).toBe(true);
    expect((await fetchSession(hub, child.sid)).lifecycle.state).toBe('running');
    for (const events of [roomSeen, dashSeen]) {
      await waitFor(() => bodiesFor(events, session.sid).some((b) => b.t === 'update-session' && b.lifecycle?.state === 'idle'), 2000, 'idle broadcast');
    }

    // activity with a live run wakes it
    await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'back' });
    expect((await fetchSession(hub, session.sid)).lifecycle).toMatchObject({ state: 'running', by: 'runner' });
  });

  it('never idles, ends or archives an ended or archived session', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const ended = await startSession(runner);
    await runner.emitWithAck('session-end', { sid: ended.sid });
    const archived = await startSession(runner);
    await runner.emitWithAck('session-archive', { sid: archived.sid, reason: 'done' });
    clock.advance(cfg().idleMs * 2 + cfg().runGraceMs);
    await hub.sweepNow();
    expect((await fetchSession(hub, ended.sid)).lifecycle.state).toBe('ended');
    expect((await fetchSession(hub, archived.sid)).lifecycle.state).toBe('archived');
  });
});
