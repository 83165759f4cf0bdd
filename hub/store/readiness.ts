import type { Store } from './sql.js';
import { unavailableReason } from './unavailable.js';

export type Readiness = { ok: true } | { ok: false; reason: string };

/** How long a readiness probe waits for its write transaction before it says the store cannot write. */
export const READINESS_TIMEOUT_MS = 2000;

/** The probe in flight, per store: concurrent readiness checks share it instead of queueing more. */
const inFlight = new WeakMap<Store, Promise<Readiness>>();
/** Why the last probe failed, until one succeeds: a probe still waiting says it too. */
const lastFailure = new WeakMap<Store, string>();

/**
 * Whether the store can take a write now: opens a write transaction (SQLite: the file's write lock;
 * PostgreSQL: a connection and the cluster's write lock) and commits it empty. One probe at a time
 * per store; a probe that has not answered within `timeoutMs` says not ready (it goes on alone, and
 * the next check waits for it rather than piling up another).
 */
export async function checkReadiness(store: Store, onError: (error: unknown) => void, timeoutMs = READINESS_TIMEOUT_MS): Promise<Readiness> {
  let probe = inFlight.get(store);
  if (!probe) {
    probe = store
      .transaction(async (tx) => void (await tx.get('SELECT 1 AS one')))
      .then(
        (): Readiness => {
          lastFailure.delete(store);
          return { ok: true };
        },
        (error: unknown): Readiness => {
          onError(error);
          const reason = unavailableReason(error) ?? 'a test write failed (the hub log says why)';
          lastFailure.set(store, reason);
          return { ok: false, reason };
        },
      )
      .finally(() => inFlight.delete(store));
    inFlight.set(store, probe);
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Readiness>((resolve) => {
    const before = lastFailure.get(store);
    const reason = `the store did not take a write within ${timeoutMs} ms${before === undefined ? '' : ` (the last probe failed: ${before})`}`;
    timer = setTimeout(() => resolve({ ok: false, reason }), timeoutMs);
  });
  try {
    return await Promise.race([probe, late]);
  } finally {
    clearTimeout(timer);
  }
}
