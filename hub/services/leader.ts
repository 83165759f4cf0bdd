/**
 * Work that one process of a cluster does (webhook delivery, web pushes): the process holding the
 * cluster-wide lock `name` runs it; the others try again every few seconds, so a stopped or killed
 * holder is replaced (PostgreSQL frees its lock with its connection; on SQLite there is one process).
 */
import type { Logger } from '../log.js';
import type { Store } from '../store/sql.js';

/** How often a process that does not hold the lock checks whether the holder is gone. */
const FOLLOWER_RETRY_MS = 2_000;

/** A sleep that ends early when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Runs `work` whenever this process holds `name`, until `stopping` aborts; `what` names it in logs. */
export async function runAsLeader(input: { store: Store; name: string; what: string; log: Logger; stopping: AbortSignal; work: () => Promise<void> }): Promise<void> {
  const { store, name, what, log, stopping } = input;
  while (!stopping.aborted) {
    try {
      const outcome = await store.tryExclusive(name, input.work);
      if (outcome.ran) return;
    } catch (error) {
      log.error({ err: error }, `${what} stopped on an error; trying again`);
    }
    await sleep(FOLLOWER_RETRY_MS, stopping);
  }
}
