import { describe, expect, it } from 'vitest';
import { LoserFirst, type Contention } from '../../hub/services/loser-first.js';

const lostIfMismatch = (value: unknown) => value === 'mismatch';
const write = (socketId: string, key = 's1:metadata', label = socketId) => ({
  label,
  socketId,
  contention: { key, by: socketId, lost: lostIfMismatch } satisfies Contention,
});

describe('loser-first ordering of a batch', () => {
  it('leaves a batch as it came while nobody is losing', () => {
    const fairness = new LoserFirst();
    const batch = [write('a'), write('b'), write('c')];
    expect(fairness.order(batch)).toEqual(batch);
  });

  it("puts the writes of a race's losers first, the longest-losing first, each socket's writes in their own order", () => {
    const fairness = new LoserFirst();
    const [a, b, c] = [write('a'), write('b'), write('c')];
    fairness.order([a, b, c]);
    fairness.settled(a.contention, 'success');
    fairness.settled(b.contention, 'mismatch');
    fairness.settled(c.contention, 'mismatch');

    // next batch: the winner first again, b twice (a pipelined write to another session after it)
    const b2 = write('b', 's2:metadata', 'b2');
    expect(fairness.order([write('a'), write('b'), b2, write('c')]).map((w) => w.label)).toEqual(['b', 'b2', 'c', 'a']);
    fairness.settled(b.contention, 'success');
    fairness.settled(c.contention, 'mismatch');
    fairness.settled(a.contention, 'mismatch');

    // c has been losing longer than a
    expect(fairness.order([write('a'), write('c'), write('b')]).map((w) => w.label)).toEqual(['c', 'a', 'b']);
  });

  it('favours a loser only on the key it lost, and forgets it once it wins', () => {
    const fairness = new LoserFirst();
    const b = write('b');
    fairness.order([b]);
    fairness.settled(b.contention, 'mismatch');
    expect(fairness.order([write('a', 's9:metadata'), write('b', 's9:metadata')]).map((w) => w.label)).toEqual(['a', 'b']);
    fairness.settled(b.contention, 'success');
    expect(fairness.order([write('a'), write('b')]).map((w) => w.label)).toEqual(['a', 'b']);
  });
});
