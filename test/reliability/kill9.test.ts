import { describe, expect, it } from 'vitest';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import { collectUpdates, connectDashboard, connectRunner, startSession, waitFor } from '../helpers/clients.js';
import { spawnHub, stopHubsAfterEach } from '../helpers/hub-process.js';
import { expectAckedWritesStored, FloodWriter } from './flood.js';

const RUNNERS = 4;
/** The per-token rate limit would throttle a flood from one token; this test is about durability. */
const ENV = { SESSION_HUB_RATE_LIMIT: '100000', SESSION_HUB_RATE_BURST: '100000', SESSION_HUB_TOKEN_RATE_LIMIT: '100000', SESSION_HUB_TOKEN_RATE_BURST: '100000' };

stopHubsAfterEach();

describe('kill -9 during a burst of writes (issue 2)', () => {
  it('keeps every acknowledged write and never reuses a seq after restart', async () => {
    const hub = await spawnHub({ env: ENV });
    const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
    await dashboard.emitWithAck('subscribe', {});
    const before = collectUpdates(dashboard);

    const writers: FloodWriter[] = [];
    const runs: Promise<void>[] = [];
    const stop = { stopped: false };
    for (let i = 0; i < RUNNERS; i++) {
      const socket = await connectRunner(hub.url, hub.tokens.runner);
      const session = await startSession(socket);
      const writer = new FloodWriter(session.sid, `w${i}`, session.metadata);
      writers.push(writer);
      runs.push(writer.run(socket, stop));
    }
    // crash in the middle of the burst: every writer has writes acknowledged and more in flight
    await waitFor(() => writers.every((w) => w.acked.length >= 25), 15_000, 'writes acknowledged');
    await hub.kill9();
    await Promise.all(runs);
    const seenBefore = before.filter((e) => e.body.t === 'update-session');
    expect(seenBefore.length).toBeGreaterThan(0);

    const restarted = await spawnHub({ dataDir: hub.dataDir, env: ENV });
    const checked = await expectAckedWritesStored(restarted.url, restarted.tokens.runner, writers);
    expect(checked).toBeGreaterThanOrEqual(RUNNERS * 25);

    // a full replay from the restarted hub: every event seen before the crash kept its seq and id
    const replayer = await connectDashboard(restarted.url, restarted.tokens.dashboard);
    const replayed: UpdateEvent[] = collectUpdates(replayer);
    const sub = await replayer.emitWithAck('subscribe', { sinceSeq: 0 });
    expect(sub.ok).toBe(true);
    const lastSeqBefore = Math.max(...before.map((e) => e.seq));
    await waitFor(() => replayed.some((e) => e.seq >= lastSeqBefore), 5000, 'replay');
    const idBySeq = new Map(replayed.map((e) => [e.seq, e.id]));
    for (const event of before) expect(idBySeq.get(event.seq), `seq ${event.seq}`).toBe(event.id);
    // and its body byte for byte: an update-session event's metadata is rebuilt from its history row
    const replayedBySeq = new Map(replayed.map((e) => [e.seq, e]));
    for (const event of before) expect(JSON.stringify(replayedBySeq.get(event.seq)), `seq ${event.seq}`).toBe(JSON.stringify(event));

    // the next write after the restart gets a seq above everything committed before the crash
    const runner = await connectRunner(restarted.url, restarted.tokens.runner);
    const writer = writers[0]!;
    const join = await runner.emitWithAck('session-join', { sid: writer.sid });
    if (!join.ok) throw new Error(join.error.message);
    const ack = await runner.emitWithAck('update-metadata', { sid: writer.sid, expectedVersion: join.session.metadata.version, patch: { after: 'restart' } });
    expect(ack.result).toBe('success');
    await waitFor(() => replayed.some((e) => e.body.t === 'update-session' && e.body.metadata?.value.after === 'restart'), 5000, 'post-restart update');
    const fresh = replayed.find((e) => e.body.t === 'update-session' && e.body.metadata?.value.after === 'restart')!;
    expect(fresh.seq).toBeGreaterThan(Math.max(...replayed.filter((e) => e !== fresh).map((e) => e.seq)));
    expect(idBySeq.has(fresh.seq)).toBe(false);
    // the seq counter kept in memory was written with the events it numbered: no gap after the restart either
    const seqs = replayed.map((e) => e.seq).sort((x, y) => x - y);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i));
  });
});
