/**
 * hub/cluster/peers.ts: whether another hub process listens, from hellos and subscriber counts that
 * may answer late (the Redis side is in redis-adapter.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { watchPeers, type Peers } from '../../hub/cluster/peers.js';
import { silentLog } from './socket-node.js';

/** A count function whose answers the test gives, one call at a time. */
function scriptedCount() {
  const pending: ((count: number) => void)[] = [];
  return {
    count: () => new Promise<number>((resolve) => pending.push(resolve)),
    calls: () => pending.length,
    answer: async (index: number, count: number) => {
      pending[index]!(count);
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

let peers: Peers | undefined;
afterEach(() => peers?.close());

describe('peers', () => {
  it('assumes company until the first count; a count of one means alone; a hello means company', async () => {
    const counts = scriptedCount();
    peers = watchPeers({ count: counts.count, pollMs: 60_000, log: silentLog });
    expect(peers.present()).toBe(true);
    await counts.answer(0, 1);
    expect(peers.present()).toBe(false);
    peers.heard();
    expect(peers.present()).toBe(true);
  });

  it('a count asked before a hello and answered after it does not undo the hello', async () => {
    const counts = scriptedCount();
    peers = watchPeers({ count: counts.count, pollMs: 20, log: silentLog });
    await counts.answer(0, 1);
    expect(peers.present()).toBe(false);
    // the next count goes out, then the newcomer's hello arrives, then that count answers 1
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(counts.calls()).toBe(2);
    peers.heard();
    await counts.answer(1, 1);
    expect(peers.present()).toBe(true);
    // a count asked after the hello is believed
    await new Promise((resolve) => setTimeout(resolve, 40));
    await counts.answer(2, 1);
    expect(peers.present()).toBe(false);
  });

  it('asks one count at a time: while Redis does not answer, none piles up', async () => {
    const counts = scriptedCount();
    peers = watchPeers({ count: counts.count, pollMs: 10, log: silentLog });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(counts.calls()).toBe(1);
    await counts.answer(0, 2);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(counts.calls()).toBeGreaterThan(1);
    expect(peers.present()).toBe(true);
  });
});
