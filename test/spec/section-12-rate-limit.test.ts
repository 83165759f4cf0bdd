/**
 * Spec section 12: the rate limit's defaults, 200 events/s with bursts to 400. The hub runs on a
 * ManualClock, so nothing refills unless the test moves time: the counts are exact.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import { connectRunner, type RunnerSocket } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';

let hub: TestHub;
let clock: ManualClock;
useTestHub((started) => (hub = started), () => ({ clock: (clock = new ManualClock()) }));

/** Sends `n` malformed events (they count against the limit, and touch no row) and tallies the answers. */
async function send(socket: RunnerSocket, n: number): Promise<Record<string, number>> {
  const acks = await Promise.all(
    Array.from({ length: n }, () => (socket as unknown as { emitWithAck(e: string, p: unknown): Promise<{ ok: false; error: { code: string } }> }).emitWithAck('session-join', {})),
  );
  const tally: Record<string, number> = {};
  for (const ack of acks) tally[ack.error.code] = (tally[ack.error.code] ?? 0) + 1;
  return tally;
}

describe('spec 12: rate limit defaults', () => {
  it('lets a burst of 400 through, then refills 200 per second', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    expect(await send(runner, 401)).toEqual({ invalid_payload: 400, rate_limited: 1 });
    clock.advance(1000);
    expect(await send(runner, 201)).toEqual({ invalid_payload: 200, rate_limited: 1 });
    clock.advance(10_000); // refills to the burst, not beyond
    expect(await send(runner, 401)).toEqual({ invalid_payload: 400, rate_limited: 1 });
  });
});
