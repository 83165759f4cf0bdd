import type { HubDeps } from '../services/deps.js';
import { recordHubHeartbeat, removeHub } from '../store/hubs.js';
import { markRunsOfHubDisconnected } from '../store/runs.js';

/**
 * Records, every interval, that this hub process is alive. Other processes sharing the store treat
 * the runs this one holds as lost once it has been silent for a few intervals (sweeps.ts).
 */
export function startHeartbeat(deps: Pick<HubDeps, 'store' | 'hubId' | 'clock' | 'log'>, intervalMs: number): { stop(): Promise<void> } {
  let beating: Promise<void> | undefined;
  const beat = () => {
    if (beating) return;
    // one statement on this process's own row: no transaction, so no write lock to wait for (and
    // no all-namespaces lock holding back every tenant's writes meanwhile)
    beating = recordHubHeartbeat(deps.store, { hubId: deps.hubId, now: deps.clock.now() })
      .catch((error: unknown) => deps.log.warn({ err: error }, 'could not record this hub\'s heartbeat; will retry'))
      .finally(() => (beating = undefined));
  };
  const timer = setInterval(beat, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await beating;
    },
  };
}

/**
 * At a clean stop, after the sockets closed: the runs this process still holds are marked as having
 * lost their runner (their grace starts), then it leaves the hubs table. In that order, because the
 * sweeps find a dead process's runs through that table.
 */
export function deregisterHub(deps: Pick<HubDeps, 'store' | 'hubId' | 'clock'>): Promise<void> {
  return deps.store.transaction(async (tx) => {
    await markRunsOfHubDisconnected(tx, { hubId: deps.hubId, at: deps.clock.now() });
    await removeHub(tx, deps.hubId);
  });
}
