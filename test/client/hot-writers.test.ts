import { describe, expect, it } from 'vitest';
import type { RunnerClient } from '../../shared/client/runner-client.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import type { TestHub } from '../helpers/hub.js';
import { getJson, runnerClient, useSdkTestHub } from './sdk-helpers.js';

let hub: TestHub;
useSdkTestHub((started) => (hub = started));

const TOTAL_WRITES = 300;
const WRITE_BUDGET_MS = 5000;

describe('RunnerClient compare-and-set under hot writers', () => {
  it('three runners writing one session flat out: every write acknowledged within its budget, none starved', { timeout: 120_000 }, async () => {
    const owner = await runnerClient(hub.url, hub.tokens.runner);
    const { session } = await owner.startSession({ tag: 'hot', flavor: 'claude', source: 'startup', metadata: { path: '/p' } });
    const writers = await Promise.all([0, 1, 2].map(() => runnerClient(hub.url, hub.tokens.runner, { writeTimeoutMs: WRITE_BUDGET_MS })));
    await Promise.all(writers.map((writer) => writer.joinSession(session.sid)));

    // back-to-back whole-document updaters (so every lost race is a rebase) until TOTAL_WRITES are
    // acknowledged: a writer that keeps losing meanwhile runs out of its budget (or its attempts)
    const acked = [0, 0, 0];
    const failures: unknown[] = [];
    const done = () => failures.length > 0 || acked.reduce((sum, count) => sum + count, 0) >= TOTAL_WRITES;
    const loop = async (writer: RunnerClient, w: number) => {
      while (!done()) {
        try {
          await writer.updateMetadata(session.sid, (m) => ({ ...m, [`w${w}`]: acked[w]! + 1 }));
          acked[w]! += 1;
        } catch (error) {
          failures.push(error);
        }
      }
    };
    await Promise.all(writers.map((writer, w) => loop(writer, w)));

    expect(failures).toEqual([]);
    // fair enough that none is starved: each of the three gets at least a tenth of the writes
    for (const count of acked) expect(count).toBeGreaterThanOrEqual(TOTAL_WRITES / 10);
    const stored = await getJson<SessionSnapshot>(`${hub.url}/api/sessions/${session.sid}`, hub.tokens.runner);
    expect(stored.metadata.version).toBe(1 + acked.reduce((sum, count) => sum + count, 0));
    for (const w of [0, 1, 2]) expect(stored.metadata.value[`w${w}`]).toBe(acked[w]);
  });
});
