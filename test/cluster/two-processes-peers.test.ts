/**
 * hub/cluster/peers.ts in real hub processes: a process alone on Redis sends its committed batches to
 * nobody; a process that starts later is sent every batch from its start on, and its dashboards see
 * every write made on the first, once each, in seq order (spec section 5). On a Redis of this test's
 * own: on the run's shared one, other files' hub processes would count as listeners.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/clients.js';
import { privateRedis } from '../helpers/redis.js';
import { createCluster, dashboardOn, gapsIn, rawUpdates, runnerOn, twoHubsAfterEach } from './two-hubs.js';

twoHubsAfterEach();
const redisServers: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  for (const redis of redisServers.splice(0)) await redis.stop();
});

const ALONE = 'no other hub process listens';
const COMPANY = 'another hub process listens';
const times = (output: string, line: string) => output.split(line).length - 1;

describe('a hub process alone on Redis, then a second one', () => {
  it('the first sends nothing while alone; from the second\'s start every write made on the first reaches a dashboard there, once, in order; alone again when it stops', { timeout: 60_000 }, async () => {
    const redis = await privateRedis();
    redisServers.push(redis);
    const cluster = await createCluster({}, { redisUrl: redis.url });
    const a = await cluster.start();
    await waitFor(() => times(a.output(), ALONE) === 1, 5000, 'A counting itself alone');
    const runner = await runnerOn(a, cluster.tokens.runner);
    const { session } = await runner.startSession({ tag: 'alone-first', flavor: 'claude', source: 'startup', metadata: { path: '/work/project' } });
    for (let n = 1; n <= 3; n += 1) await runner.updateMetadata(session.sid, { patch: { n } });

    const b = await cluster.start();
    // B says hello before it listens (A's log reaches this test through a pipe, hence the wait)
    await waitFor(() => times(a.output(), COMPANY) === 1, 2000, 'A hearing of B');
    const dashboard = await dashboardOn(b, cluster.tokens.dashboard);
    const seen = rawUpdates(dashboard);
    await dashboard.subscribe();
    const subscribedAt = dashboard.lastSeq!;
    for (let n = 4; n <= 10; n += 1) await runner.updateMetadata(session.sid, { patch: { n } });
    const versionsSeen = () => seen.flatMap((event) => (event.body.t === 'update-session' && event.body.metadata ? [event.body.metadata.version] : []));
    await waitFor(() => versionsSeen().includes(11), 10_000, 'the last write on the dashboard on B');
    const seqs = seen.map((event) => event.seq);
    expect(seqs[0]).toBe(subscribedAt + 1);
    expect(gapsIn(seqs)).toEqual([]);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(versionsSeen()).toEqual([5, 6, 7, 8, 9, 10, 11]);

    await b.stop();
    await waitFor(() => times(a.output(), ALONE) === 2, 5000, 'A alone again');
  });
});
