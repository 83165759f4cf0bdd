/**
 * Runs held by hub processes that died (kill -9) start their grace; nobody else's do. On both
 * engines: the sweep and a process joining a cluster look dead processes up in the hubs table and
 * mark only those processes' runs, and a clean stop marks its own runs before it leaves the table.
 */
import { describe, expect, it } from 'vitest';
import { deregisterHub } from '../../hub/cluster/heartbeat.js';
import { ManualClock } from '../../hub/clock.js';
import { listDeadHubs, recordHubHeartbeat } from '../../hub/store/hubs.js';
import { getRun, insertRun, markRunsOfDeadHubsDisconnected, setRunDisconnected } from '../../hub/store/runs.js';
import { insertSession } from '../../hub/store/sessions.js';
import { STORE_ENGINES, storeForEachTest } from '../helpers/store-engines.js';

const ALIVE_SINCE = 10_000;
const AT = 20_000;

describe.each(STORE_ENGINES)('$name: runs of dead hub processes', (engine) => {
  const store = storeForEachTest(engine);

  /** One session and live run per entry: `run-<name>` held by `hubId` (null: detached). */
  async function seedRuns(runs: { name: string; hubId: string | null; disconnectedAt?: number }[]): Promise<void> {
    await store().transaction(async (tx) => {
      for (const { name, hubId, disconnectedAt } of runs) {
        await insertSession(tx, { sid: `s-${name}`, namespace: 'default', tag: name, flavor: 'claude', parentSid: null, metadata: {}, now: 1 });
        await insertRun(tx, { runId: `run-${name}`, sid: `s-${name}`, now: 1, pid: null, detached: hubId === null, hubId });
        if (disconnectedAt !== undefined) await setRunDisconnected(tx, { runId: `run-${name}`, at: disconnectedAt, hubId: null });
      }
    });
  }

  const disconnectedAt = async (name: string) => (await store().transaction((tx) => getRun(tx, `run-${name}`)))!.disconnectedAt;

  it('marks the connected runs of processes silent since before aliveSince, and only those', async () => {
    await store().transaction(async (tx) => {
      await recordHubHeartbeat(tx, { hubId: 'self', now: 5_000 }); // stale, but it is the one asking
      await recordHubHeartbeat(tx, { hubId: 'alive', now: ALIVE_SINCE });
      await recordHubHeartbeat(tx, { hubId: 'dead-1', now: ALIVE_SINCE - 1 });
      await recordHubHeartbeat(tx, { hubId: 'dead-2', now: 1 });
    });
    await seedRuns([
      { name: 'self', hubId: 'self' },
      { name: 'alive', hubId: 'alive' },
      { name: 'dead-1-a', hubId: 'dead-1' },
      { name: 'dead-1-b', hubId: 'dead-1' },
      { name: 'dead-2', hubId: 'dead-2' },
      { name: 'dead-2-already-lost', hubId: 'dead-2', disconnectedAt: 3 },
      { name: 'detached', hubId: null },
    ]);

    expect((await store().transaction((tx) => listDeadHubs(tx, { selfHubId: 'self', aliveSince: ALIVE_SINCE }))).sort()).toEqual(['dead-1', 'dead-2']);
    const marked = await store().transaction((tx) => markRunsOfDeadHubsDisconnected(tx, { selfHubId: 'self', aliveSince: ALIVE_SINCE, at: AT }));

    expect(marked).toBe(3);
    expect(await disconnectedAt('dead-1-a')).toBe(AT);
    expect(await disconnectedAt('dead-1-b')).toBe(AT);
    expect(await disconnectedAt('dead-2')).toBe(AT);
    // its grace started earlier and keeps its start
    expect(await disconnectedAt('dead-2-already-lost')).toBe(3);
    expect(await disconnectedAt('self')).toBeNull();
    expect(await disconnectedAt('alive')).toBeNull();
    expect(await disconnectedAt('detached')).toBeNull();

    // marked once: a second pass finds nothing left to mark
    expect(await store().transaction((tx) => markRunsOfDeadHubsDisconnected(tx, { selfHubId: 'self', aliveSince: ALIVE_SINCE, at: AT + 1 }))).toBe(0);
    expect(await disconnectedAt('dead-1-a')).toBe(AT);
  });

  it('a clean stop marks the runs it still holds, then leaves the hubs table', async () => {
    await store().transaction(async (tx) => {
      await recordHubHeartbeat(tx, { hubId: 'leaving', now: ALIVE_SINCE });
      await recordHubHeartbeat(tx, { hubId: 'staying', now: ALIVE_SINCE });
    });
    await seedRuns([
      { name: 'leaving', hubId: 'leaving' },
      { name: 'staying', hubId: 'staying' },
    ]);

    await deregisterHub({ store: store(), hubId: 'leaving', clock: new ManualClock(AT) });

    expect(await disconnectedAt('leaving')).toBe(AT);
    expect(await disconnectedAt('staying')).toBeNull();
    // gone from the table: no later sweep looks for its runs (none are left to find)
    const dead = await store().transaction((tx) => listDeadHubs(tx, { selfHubId: 'staying', aliveSince: Number.MAX_SAFE_INTEGER }));
    expect(dead).toEqual([]);
  });
});
