/**
 * A process that lost its last runner socket of a run hands the run to a process that still holds
 * one (hub/lifecycle/session-events.ts, runnerSocketsLost). On both engines: the handover moves only
 * a run this process still holds, connected. Across processes the holder's runner may leave before
 * the handover commits; the holder then starts the run's grace, and a handover that came after must
 * not bring the run back as connected on a process with no runner (it would never end).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { getRun, handOverRun, insertRun, listLostRuns, setRunDisconnected } from '../../hub/store/runs.js';
import { insertSession } from '../../hub/store/sessions.js';
import { STORE_ENGINES, storeForEachTest } from '../helpers/store-engines.js';

describe.each(STORE_ENGINES)('$name: handing a run over to another hub process', (engine) => {
  const store = storeForEachTest(engine);
  beforeEach(async () => {
    await store().transaction(async (tx) => {
      await insertSession(tx, { sid: 's1', namespace: 'default', tag: 's1', flavor: 'claude', parentSid: null, metadata: {}, now: 1 });
      await insertRun(tx, { runId: 'r1', sid: 's1', now: 1, pid: null, detached: false, hubId: 'hub-b' });
    });
  });

  const handOver = (from: string, to: string) => store().transaction((tx) => handOverRun(tx, { runId: 'r1', from, to }));
  const run = async () => (await store().transaction((tx) => getRun(tx, 'r1')))!;

  it('moves a connected run from the process holding it to the other', async () => {
    expect(await handOver('hub-b', 'hub-a')).toBe(true);
    expect((await run()).disconnectedAt).toBeNull();
    // held by A now: B has nothing left to hand over, A does
    expect(await handOver('hub-b', 'hub-c')).toBe(false);
    expect(await handOver('hub-a', 'hub-c')).toBe(true);
  });

  it('leaves a run whose grace the holder started meanwhile as it is: disconnected, due to end', async () => {
    // A's runner left after A answered "held": A started the grace
    await store().transaction((tx) => setRunDisconnected(tx, { runId: 'r1', at: 40, hubId: null }));

    expect(await handOver('hub-b', 'hub-a')).toBe(false);

    expect((await run()).disconnectedAt).toBe(40);
    const lost = await store().transaction((tx) => listLostRuns(tx, { before: 100, limit: 10 }));
    expect(lost.map((r) => r.runId)).toEqual(['r1']);
  });

  it('does not move a run another process holds', async () => {
    expect(await handOver('hub-c', 'hub-a')).toBe(false);
    expect(await handOver('hub-b', 'hub-a')).toBe(true);
  });
});
