import { afterEach, describe, expect, it } from 'vitest';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import { collectUpdates, connectDashboard, connectRunner, startSession, waitFor, type RunnerSocket } from '../helpers/clients.js';
import { testRedisUrl } from '../helpers/redis.js';
import { startRedisProxy, type RedisProxy } from './redis-proxy.js';
import { startTwoHubs, twoHubsAfterEach } from './two-hubs.js';

twoHubsAfterEach();
const proxies: RedisProxy[] = [];
afterEach(async () => {
  for (const proxy of proxies.splice(0)) await proxy.close();
});

/** Two processes; A reaches Redis through a relay the test can hold, so B hears A's commits late. */
async function clusterWithSlowA() {
  const proxy = await startRedisProxy(testRedisUrl());
  proxies.push(proxy);
  const hubs = await startTwoHubs({}, { SESSION_HUB_REDIS_URL: proxy.url });
  return { ...hubs, proxy };
}

async function write(runner: RunnerSocket, sid: string, version: number, value: number): Promise<number> {
  const ack = await runner.emitWithAck('update-metadata', { sid, expectedVersion: version, patch: { n: value } });
  if (ack.result !== 'success') throw new Error(`write failed: ${JSON.stringify(ack)}`);
  return ack.version;
}

const seqs = (events: UpdateEvent[]) => events.map((event) => event.seq);

describe('live updates after a subscribe or join on another process than the writer', () => {
  it('a dashboard subscribing on B while A\'s commits are still on their way gets no update at or below its ack seq', { timeout: 30_000 }, async () => {
    const { a, b, tokens, proxy } = await clusterWithSlowA();
    const runner = await connectRunner(a.url, tokens.runner);
    const session = await startSession(runner);
    // B has delivered this tenant's events before: its sequencer is running for the tenant
    const watcher = await connectDashboard(b.url, tokens.dashboard);
    const watched = collectUpdates(watcher);
    expect(await watcher.emitWithAck('subscribe', {})).toMatchObject({ ok: true });
    let version = await write(runner, session.sid, session.metadata.version, 0);
    await waitFor(() => watched.length > 0, 10_000, 'B to hear of A\'s first write');

    proxy.hold();
    for (let i = 1; i <= 3; i += 1) version = await write(runner, session.sid, version, i);
    const dashboard = await connectDashboard(b.url, tokens.dashboard);
    const updates = collectUpdates(dashboard);
    const ack = await dashboard.emitWithAck('subscribe', {});
    if (!ack.ok) throw new Error('subscribe failed');
    expect(ack.sessions[0]!.metadata.version).toBe(version);
    proxy.release();

    version = await write(runner, session.sid, version, 4);
    await waitFor(() => updates.some((event) => event.seq > ack.seq), 10_000, 'the write made after the subscribe');
    await waitFor(() => watched.some((event) => event.seq > ack.seq), 10_000, 'the older dashboard to have it too');
    // the snapshots include everything through ack.seq: only later events follow, once each
    expect(seqs(updates)).toEqual([ack.seq + 1]);
  });

  it('a runner joining on B with sinceSeq gets its replay, then live updates above it, none twice', { timeout: 30_000 }, async () => {
    const { a, b, tokens, proxy } = await clusterWithSlowA();
    const writer = await connectRunner(a.url, tokens.runner);
    const session = await startSession(writer);
    const watcher = await connectDashboard(b.url, tokens.dashboard);
    const watched = collectUpdates(watcher);
    expect(await watcher.emitWithAck('subscribe', {})).toMatchObject({ ok: true });
    let version = await write(writer, session.sid, session.metadata.version, 0);
    await waitFor(() => watched.length > 0, 10_000, 'B to hear of A\'s first write');
    const since = watched[watched.length - 1]!.seq;

    proxy.hold();
    for (let i = 1; i <= 3; i += 1) version = await write(writer, session.sid, version, i);
    const joiner = await connectRunner(b.url, tokens.runner);
    const updates = collectUpdates(joiner);
    const joined = await joiner.emitWithAck('session-join', { sid: session.sid, sinceSeq: since });
    expect(joined).toMatchObject({ ok: true });
    await waitFor(() => updates.length >= 3, 10_000, 'the replay');
    proxy.release();

    version = await write(writer, session.sid, version, 4);
    await waitFor(() => watched.some((event) => event.body.t === 'update-session' && event.body.metadata?.version === version), 10_000, 'B to deliver the last write');
    await waitFor(() => updates.some((event) => event.body.t === 'update-session' && event.body.metadata?.version === version), 10_000, 'the joiner to get the last write');
    const got = seqs(updates);
    expect(new Set(got).size).toBe(got.length);
    expect([...got].sort((x, y) => x - y)).toEqual(got);
    expect(got[0]).toBeGreaterThan(since);
  });

  it('a dashboard on B gets an event A committed after the subscribe and never published, though B had heard nothing of the tenant before', { timeout: 30_000 }, async () => {
    const { a, b, tokens, proxy } = await clusterWithSlowA();
    proxy.hold();
    const runner = await connectRunner(a.url, tokens.runner);
    const session = await startSession(runner);
    const dashboard = await connectDashboard(b.url, tokens.dashboard);
    const updates = collectUpdates(dashboard);
    const ack = await dashboard.emitWithAck('subscribe', {});
    if (!ack.ok) throw new Error('subscribe failed');
    await write(runner, session.sid, session.metadata.version, 1); // ack.seq + 1, never published: A dies
    await a.kill9();

    const other = await connectRunner(b.url, tokens.runner);
    await startSession(other); // ack.seq + 2 (and on), committed and published by B
    await waitFor(() => updates.some((event) => event.body.t === 'session-created'), 10_000, 'B\'s new session');
    expect(seqs(updates)[0]).toBe(ack.seq + 1);
    expect(seqs(updates)).toEqual(Array.from({ length: updates.length }, (_, i) => ack.seq + 1 + i));
  });
});
