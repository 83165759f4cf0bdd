/**
 * Spec section 2: the ack is called exactly once for every outcome. Here the one outcome a real
 * client cannot provoke: work queued to run after the ack (replay) that throws must not produce a
 * second answer (an `error` event after a success, or a second ack).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../../hub/log.js';
import { createMetrics } from '../../hub/metrics/metrics.js';
import { eventHandlers } from '../../hub/socket/handle.js';
import { RateLimiter } from '../../hub/socket/rate-limit.js';

/** The smallest socket `eventHandlers` works with: records listeners and server `error` emits. */
function socketStub() {
  const listeners = new Map<string, (...args: unknown[]) => void>();
  const errors: unknown[] = [];
  const limiter = new RateLimiter({ ratePerSecond: 1000, burst: 1000 }, { ratePerSecond: 1000, burst: 1000 });
  const socket = {
    on: (event: string, listener: (...args: unknown[]) => void) => listeners.set(event, listener),
    emit: (_event: 'error', body: unknown) => errors.push(body),
    data: { identity: { tokenHash: 'h', role: 'runner', namespace: 'default' }, lastSeq: undefined, log: createLogger('silent'), bucket: limiter.forSocket(0), flood: { streakStart: 0, lastRefusal: 0 } },
  };
  const on = eventHandlers<{ ping: (payload: { n: number }, ack: (response: { ok: true }) => void) => void }>(socket as never, {
    limiter,
    now: () => 0,
    metrics: createMetrics(),
  });
  return { on, errors, fire: (event: string, ...args: unknown[]) => listeners.get(event)!(...args) };
}

describe('ack exactly once', () => {
  it('answers once, with the success, when work after the ack throws', () => {
    const stub = socketStub();
    stub.on('ping', z.object({ n: z.number() }), 'ok', (_payload, ctx) => {
      ctx.afterAck(() => {
        throw new Error('replay failed');
      });
      return { ok: true };
    });
    const acks: unknown[] = [];
    stub.fire('ping', { n: 1 }, (response: unknown) => acks.push(response));
    expect(acks).toEqual([{ ok: true }]);
    // without an ack callback: no `error` event follows the (silent) success
    stub.fire('ping', { n: 1 });
    expect(stub.errors).toEqual([]);
  });
});
