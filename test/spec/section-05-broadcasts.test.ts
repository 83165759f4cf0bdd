/**
 * Spec section 5, the statements no other suite pinned: `seq` is per namespace and `id` unique;
 * the hub keeps at least the last N events AND at least the last T ms of each namespace (pruning
 * needs both to be exceeded); a sweep-originated change reaches every runner in the room.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import { collectUpdates, connectDashboard, connectRunner, startSession, waitFor, type DashboardSocket } from '../helpers/clients.js';
import { closeTestHubsAfterEach, startTestHub, type TestHub } from '../helpers/hub.js';

closeTestHubsAfterEach();

/** Lets in-flight emits land before asserting what a socket got after an ack. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

/** What `subscribe { sinceSeq }` brings a fresh dashboard: the replayed events, or 'gap'. */
async function replayFrom(hub: TestHub, token: string, sinceSeq: number): Promise<UpdateEvent[] | 'gap'> {
  const dashboard: DashboardSocket = await connectDashboard(hub.url, token);
  let gap = false;
  dashboard.on('resync', () => (gap = true));
  const events = collectUpdates(dashboard);
  const ack = await dashboard.emitWithAck('subscribe', { sinceSeq });
  if (!ack.ok) throw new Error(ack.error.message);
  await waitFor(() => gap || events.length >= ack.seq - sinceSeq, 2000, 'the replay');
  await settle();
  dashboard.disconnect();
  return gap ? 'gap' : events;
}

/** A session in each namespace, with `writes` metadata writes in default; returns default's latest seq. */
async function writeEvents(hub: TestHub, writes: number) {
  const runner = await connectRunner(hub.url, hub.tokens.runner);
  const other = await connectRunner(hub.url, hub.tokens.otherRunner);
  const mine = await startSession(runner, { tag: 'mine' });
  for (let i = 0; i < writes; i++) await runner.emitWithAck('update-metadata', { sid: mine.sid, expectedVersion: 1 + i, patch: { n: i } });
  const theirs = await startSession(other, { tag: 'theirs' });
  const all = await replayFrom(hub, hub.tokens.dashboard, 0);
  const theirsAll = await replayFrom(hub, hub.tokens.otherDashboard, 0);
  if (all === 'gap' || theirsAll === 'gap') throw new Error('nothing pruned yet, no gap expected');
  return { runner, mine, theirs, all, theirsAll };
}

describe('spec 5: seq and id', () => {
  it('numbers each namespace on its own, strictly increasing from 1, and gives every event its own id', async () => {
    const hub = await startTestHub();
    const { all, theirsAll, theirs } = await writeEvents(hub, 5);
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    // the other namespace's first event is its seq 1, whatever the default namespace wrote before it
    expect(theirsAll.map((e) => [e.seq, e.body.sid])).toEqual([[1, theirs.sid]]);
    const ids = [...all, ...theirsAll].map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('spec 5: retention', () => {
  it('keeps the newest N events of each namespace even when all are older than the kept time', async () => {
    const clock = new ManualClock();
    const hub = await startTestHub({ clock, config: { eventKeep: 3, eventKeepMs: 0 } });
    const { all, theirsAll } = await writeEvents(hub, 5);
    const latest = all.at(-1)!.seq;
    clock.advance(1000);
    expect((await hub.sweepNow()).eventsPruned).toBe(all.length - 3);
    expect(await replayFrom(hub, hub.tokens.dashboard, latest - 3)).toEqual(all.slice(-3));
    expect(await replayFrom(hub, hub.tokens.dashboard, latest - 4)).toBe('gap');
    // the count is per namespace: the other one's single event stays
    expect(await replayFrom(hub, hub.tokens.otherDashboard, 0)).toEqual(theirsAll);
  });

  it('keeps every event younger than the kept time, however many there are', async () => {
    const clock = new ManualClock();
    const hub = await startTestHub({ clock, config: { eventKeep: 0, eventKeepMs: 60_000, aliveTimeoutMs: 600_000, idleMs: 600_000 } });
    // (presence and idle sweeps are pushed out of the way: they would add events of their own)
    const { all } = await writeEvents(hub, 5);
    clock.advance(59_000);
    expect((await hub.sweepNow()).eventsPruned).toBe(0);
    expect(await replayFrom(hub, hub.tokens.dashboard, 0)).toEqual(all);
    clock.advance(2_000);
    expect((await hub.sweepNow()).eventsPruned).toBeGreaterThanOrEqual(all.length);
    expect(await replayFrom(hub, hub.tokens.dashboard, 0)).toBe('gap');
  });
});

describe('spec 5: hub-originated changes', () => {
  it('reach every runner in the room from a sweep, the one that last wrote included', async () => {
    const clock = new ManualClock();
    const hub = await startTestHub({ clock, config: { turnTimeoutMs: 1000 } });
    const writer = await connectRunner(hub.url, hub.tokens.runner);
    const peer = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(writer);
    await peer.emitWithAck('session-join', { sid: session.sid });
    const writerSeen = collectUpdates(writer);
    const peerSeen = collectUpdates(peer);
    expect(await writer.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'never answered' })).toMatchObject({ ok: true });
    clock.advance(1001);
    expect((await hub.sweepNow()).turnsTimedOut).toBe(1);
    const timedOut = (events: UpdateEvent[]) => events.find((e) => e.body.t === 'turn' && e.body.turn.status === 'timeout');
    await waitFor(() => timedOut(writerSeen) !== undefined && timedOut(peerSeen) !== undefined, 2000, 'the timeout broadcast');
    expect(timedOut(writerSeen)).toEqual(timedOut(peerSeen));
  });
});
