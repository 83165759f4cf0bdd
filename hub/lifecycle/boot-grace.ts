import { countAliveHubs, recordHubHeartbeat } from '../store/hubs.js';
import { listSilentDetachedRuns, markLiveRunsDisconnected, markRunsOfDeadHubsDisconnected } from '../store/runs.js';
import { touchActivity } from '../store/sessions.js';
import type { Store, Tx } from '../store/sql.js';
import { HUB_PRESUMED_DEAD_AFTER_HEARTBEATS } from './sweeps.js';

const BATCH = 200;

/**
 * The silence of a detached run (sweeps.ts) counts from now: while the whole hub was down no hook
 * event could reach it, so the outage is not the runner's silence (as the grace counts from the
 * start for socket runs). Without this, a restart after an outage longer than the idle time ended
 * every live detached run at the boot sweep.
 */
async function restartDetachedSilence(tx: Tx, now: number): Promise<void> {
  for (;;) {
    // before now - 1: a session touched here (activity = now) is not listed again
    const runs = await listSilentDetachedRuns(tx, { before: now - 1, limit: BATCH });
    for (const run of runs) await touchActivity(tx, { sid: run.sid, now });
    if (runs.length < BATCH) return;
  }
}

/**
 * At the start of a hub process: registers it, and starts the grace of the live runs whose runner
 * socket is gone with an earlier process. When no other hub process is alive (SQLite always: one
 * process at a time), the whole hub was down and no runner could come back: every live run gets
 * the full grace from now, and every live detached run its full silence. Otherwise the others kept
 * serving, so only the runs of processes that stopped heartbeating start theirs. Returns how many
 * runs now await their runners.
 */
export function carryOverLiveRuns(store: Store, input: { hubId: string; now: number; heartbeatMs: number }): Promise<number> {
  const { hubId, now } = input;
  return store.transaction(async (tx) => {
    await recordHubHeartbeat(tx, { hubId, now });
    const aliveSince = now - HUB_PRESUMED_DEAD_AFTER_HEARTBEATS * input.heartbeatMs;
    const othersAlive = store.dialect === 'sqlite' ? 0 : (await countAliveHubs(tx, { aliveSince })) - 1;
    if (othersAlive === 0) {
      await restartDetachedSilence(tx, now);
      return markLiveRunsDisconnected(tx, { at: now });
    }
    return markRunsOfDeadHubsDisconnected(tx, { selfHubId: hubId, aliveSince, at: now });
  });
}
