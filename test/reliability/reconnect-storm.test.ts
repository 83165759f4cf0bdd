import { describe, expect, it } from 'vitest';
import { connectDashboard, connectRunner, startSession, waitFor, type RunnerSocket } from '../helpers/clients.js';
import { spawnHub, stopHubsAfterEach, type HubProcess } from '../helpers/hub-process.js';
import { Follower, SeqLedger, type Versioned } from './flood.js';
import { sample, scrape } from './metrics-text.js';

/** CI size (2 cores); the soak (`npm run soak -- --storm 1000`) runs the full 1,000. */
const RUNNERS = Number(process.env.STORM_RUNNERS ?? 200);
const ENV = { SESSION_HUB_RATE_LIMIT: '100000', SESSION_HUB_RATE_BURST: '100000', SESSION_HUB_TOKEN_RATE_LIMIT: '100000', SESSION_HUB_TOKEN_RATE_BURST: '100000' };

let hub: HubProcess | undefined;
stopHubsAfterEach();

async function inBatches<T>(count: number, batch: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let start = 0; start < count; start += batch) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(batch, count - start) }, (_, i) => make(start + i)))));
  }
  return out;
}

describe('reconnect storm', () => {
  it(`${RUNNERS} runners drop and reconnect at once: all converge and /healthz answers during the storm`, async () => {
    hub = await spawnHub({ env: ENV });
    const { url, tokens } = hub;
    const ledger = new SeqLedger();
    const followers = await inBatches(RUNNERS, 50, async () => {
      const socket = await connectRunner(url, tokens.runner);
      const session = await startSession(socket);
      return { socket, follower: new Follower(session.sid, session.metadata, ledger) };
    });
    const dashboard = await connectDashboard(url, tokens.dashboard);
    const sub = await dashboard.emitWithAck('subscribe', {});
    if (!sub.ok) throw new Error(sub.error.message);
    const seqAtDrop = sub.seq;

    // every runner drops at once; while they are away, each session gets a write they miss
    for (const { socket } of followers) socket.disconnect();
    const writer = await connectRunner(url, tokens.runner);
    const expected = new Map<string, Versioned>();
    await inBatches(RUNNERS, 100, async (i) => {
      const { follower } = followers[i]!;
      const ack = await writer.emitWithAck('update-metadata', { sid: follower.sid, expectedVersion: 1, patch: { missed: i } });
      if (ack.result !== 'success') throw new Error(`write ${i}: ${ack.result}`);
      expected.set(follower.sid, { version: ack.version, value: ack.metadata });
    });

    // all reconnect at once with lastSeq and session-join; the hub must still answer HTTP meanwhile
    const storm = Promise.all(
      followers.map(async ({ follower }): Promise<RunnerSocket> => {
        const socket = await connectRunner(url, tokens.runner, { lastSeq: seqAtDrop });
        follower.attach(socket);
        const join = await socket.emitWithAck('session-join', { sid: follower.sid });
        if (!join.ok) throw new Error(join.error.message);
        return socket;
      }),
    );
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    await storm;

    await waitFor(() => followers.every(({ follower }) => follower.cache.version === expected.get(follower.sid)!.version), 20_000, 'every runner caught up');
    for (const { follower } of followers) {
      expect(follower.cache).toEqual(expected.get(follower.sid));
      expect(follower.resyncs).toBe(0);
    }
    expect(ledger.reused).toEqual([]);
    const text = await scrape(url);
    expect(sample(text, 'session_hub_connected_clients', { kind: 'runner' })).toBe(RUNNERS + 1);
  }, 120_000);
});
