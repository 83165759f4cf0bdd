/**
 * Hook event ids (hub/hook/event-id.ts): the hub applies each id once, so two events must never
 * share one, within a process or across processes fired in the same millisecond.
 */
import { describe, expect, it } from 'vitest';
import { newEventId } from '../../hub/hook/event-id.js';

describe('newEventId', () => {
  it('gives 200,000 distinct ids in one millisecond of one process, each within the route\'s 128 characters', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 200_000; i++) ids.add(newEventId(1_795_640_000_000, 4242));
    expect(ids.size).toBe(200_000);
    for (const id of [...ids].slice(0, 100)) {
      expect(id.length).toBeLessThanOrEqual(128);
      expect(id).toMatch(/^[0-9a-z]+-[0-9a-z]+-[0-9a-z]{22}$/);
    }
  });

  it('names the firing time and the process, so two processes never share the fixed part', () => {
    const [time, pid] = newEventId(1_795_640_000_123, 31337).split('-');
    expect(Number.parseInt(time!, 36)).toBe(1_795_640_000_123);
    expect(Number.parseInt(pid!, 36)).toBe(31337);
  });
});
