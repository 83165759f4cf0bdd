/**
 * Waiters of one hub (its store), by approval id: woken right after a change on this hub commits.
 * Per store, so another hub — even one in the same Node process, as in tests — is only heard
 * through the store. In memory only: nothing here touches the store.
 */
import type { HubDeps } from '../services/deps.js';
import type { Store } from '../store/sql.js';

const waitersByStore = new WeakMap<Store, Map<string, Set<() => void>>>();

function waitersOf(deps: HubDeps): Map<string, Set<() => void>> {
  let waiters = waitersByStore.get(deps.store);
  if (!waiters) waitersByStore.set(deps.store, (waiters = new Map()));
  return waiters;
}

/** Hubs shutting down: their waiters stop waiting (the approval ends `interrupted`; the hook or runner asks again on the next hub). */
const closingStores = new WeakSet<Store>();

export function isClosing(deps: HubDeps): boolean {
  return closingStores.has(deps.store);
}

/** At shutdown: every waiter of this hub answers now, its approval `interrupted`, so no request holds the stop. */
export function releaseApprovalWaiters(deps: HubDeps): void {
  closingStores.add(deps.store);
  for (const waiters of [...waitersOf(deps).values()]) for (const waiter of [...waiters]) waiter();
}

/** After a unit of work that ended approvals commits: their waiters here answer at once. */
export function wakeApprovalWaiters(deps: HubDeps, approvalIds: readonly string[]): void {
  for (const approvalId of approvalIds) for (const waiter of waitersOf(deps).get(approvalId) ?? []) waiter();
}

/** Sleeps `ms`, or less when the approval is woken. */
export function sleepOrWake(deps: HubDeps, approvalId: string, ms: number): Promise<void> {
  const waiters = waitersOf(deps);
  return new Promise((resolve) => {
    let set = waiters.get(approvalId);
    if (!set) waiters.set(approvalId, (set = new Set()));
    const done = () => {
      clearTimeout(timer);
      set.delete(done);
      if (set.size === 0) waiters.delete(approvalId);
      resolve();
    };
    const timer = setTimeout(done, ms);
    set.add(done);
  });
}
