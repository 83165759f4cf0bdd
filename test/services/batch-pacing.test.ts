import { describe, expect, it } from 'vitest';
import { BatchPacing, MAX_LINGER_MS } from '../../hub/services/batch-pacing.js';

/** A pacing on a clock the test moves. */
function pacingAt(start = 1_000) {
  const clock = { now: start };
  return { clock, pacing: new BatchPacing(() => clock.now) };
}

describe('group-commit pacing (when the next batch starts)', () => {
  it('starts at once before any batch ended', () => {
    expect(pacingAt().pacing.delayFor(1)).toBe(0);
  });

  it('after a batch that waited on the database, waits for as many writes as were in flight, at most a tenth of its time', () => {
    const { clock, pacing } = pacingAt();
    pacing.ended({ writes: 6, queued: 4, wallMs: 20, cpuMs: 1.5 });
    expect(pacing.delayFor(3)).toBe(2);
    clock.now += 1.5;
    expect(pacing.delayFor(9)).toBeCloseTo(0.5);
    // the tenth write back: the fleet is together again
    expect(pacing.delayFor(10)).toBe(0);
    expect(pacing.delayFor(11)).toBe(0);
    clock.now += 0.5;
    expect(pacing.delayFor(1)).toBe(0);
  });

  it('begin() times the batch on its clock: one that waited on the database paces the next', () => {
    const { clock, pacing } = pacingAt();
    const ended = pacing.begin();
    clock.now += 30;
    ended({ writes: 10, queued: 0 });
    expect(pacing.delayFor(9)).toBe(3);
  });

  it(`never waits longer than ${MAX_LINGER_MS} ms, however slow the batch`, () => {
    const { pacing } = pacingAt();
    pacing.ended({ writes: 10, queued: 0, wallMs: 400, cpuMs: 3 });
    expect(pacing.delayFor(1)).toBe(MAX_LINGER_MS);
  });

  it('does not wait after a short batch (a database on this machine: a timer cannot wait under 1 ms)', () => {
    const { pacing } = pacingAt();
    pacing.ended({ writes: 10, queued: 0, wallMs: 9, cpuMs: 1 });
    expect(pacing.delayFor(1)).toBe(0);
    pacing.ended({ writes: 10, queued: 0, wallMs: 10, cpuMs: 1 });
    expect(pacing.delayFor(1)).toBe(1);
  });

  it('does not wait after a batch that kept the hub busy (a loaded hub)', () => {
    const { pacing } = pacingAt();
    pacing.ended({ writes: 50, queued: 50, wallMs: 20, cpuMs: 12 });
    expect(pacing.delayFor(1)).toBe(0);
  });

  it('a write after a pause starts its batch at once', () => {
    const { clock, pacing } = pacingAt();
    pacing.ended({ writes: 10, queued: 0, wallMs: 20, cpuMs: 1 });
    clock.now += 60_000;
    expect(pacing.delayFor(1)).toBe(0);
  });

  it('forgets a batch that waited once the next one kept the hub busy', () => {
    const { pacing } = pacingAt();
    pacing.ended({ writes: 10, queued: 0, wallMs: 20, cpuMs: 1 });
    pacing.ended({ writes: 10, queued: 0, wallMs: 20, cpuMs: 15 });
    expect(pacing.delayFor(1)).toBe(0);
  });
});
