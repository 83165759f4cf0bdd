import { countAliveHubs, recordHubHeartbeat } from '../store/hubs.js';
import { markLiveRunsDisconnected, markRunsOfDeadHubsDisconnected } from '../store/runs.js';
import type { Store } from '../store/sql.js';
import { HUB_PRESUMED_DEAD_AFTER_HEARTBEATS } from './sweeps.js';

/**
 * At the start of a hub process: registers it, and starts the grace of the live runs whose runner
 * socket is gone with an earlier process. When no other hub process is alive (SQLite always: one
 * process at a time), the whole hub was down and no runner could come back: every live run gets
 * the full grace from now. Otherwise the others kept serving, so only the runs of processes that
 * stopped heartbeating start theirs. Returns how many runs now await their runners.
 */
export function carryOverLiveRuns(store: Store, input: { hubId: string; now: number; heartbeatMs: number }): Promise<number> {
  const { hubId, now } = input;
  return store.transaction(async (tx) => {
    await recordHubHeartbeat(tx, { hubId, now });
    const aliveSince = now - HUB_PRESUMED_DEAD_AFTER_HEARTBEATS * input.heartbeatMs;
    const othersAlive = store.dialect === 'sqlite' ? 0 : (await countAliveHubs(tx, { aliveSince })) - 1;
    if (othersAlive === 0) return markLiveRunsDisconnected(tx, { at: now });
    return markRunsOfDeadHubsDisconnected(tx, { selfHubId: hubId, aliveSince, at: now });
  });
}
