/**
 * The registry of background hooks waiting for a person's message (message-wait.ts), per hub: one
 * waiter per agent session (a newer one replaces the older), woken when a message for its session
 * commits on this process.
 */
import type { Store } from '../store/sql.js';
import type { HubDeps } from '../services/deps.js';

export interface MessageWaiter {
  namespace: string;
  /** Its hub session, once found by tag. */
  sid: string | undefined;
  replaced: boolean;
  /** Set by wake(); the waiter looks again before it sleeps. */
  woken: boolean;
  wake(): void;
}

/** Per store (per hub, even several in one test process): agent session key -> its waiter. */
const waitersByStore = new WeakMap<Store, Map<string, MessageWaiter>>();
const closingStores = new WeakSet<Store>();

function waitersOf(deps: HubDeps): Map<string, MessageWaiter> {
  let waiters = waitersByStore.get(deps.store);
  if (!waiters) waitersByStore.set(deps.store, (waiters = new Map()));
  return waiters;
}

/** Registers the waiter of `key`; an older one of the same key is replaced (it answers at once with nothing). */
export function registerWaiter(deps: HubDeps, key: string, waiter: MessageWaiter): () => void {
  const waiters = waitersOf(deps);
  const older = waiters.get(key);
  if (older) {
    older.replaced = true;
    older.wake();
  }
  waiters.set(key, waiter);
  return () => {
    if (waiters.get(key) === waiter) waiters.delete(key);
  };
}

export function isClosing(deps: HubDeps): boolean {
  return closingStores.has(deps.store);
}

/** After a message for `sid` commits: its waiter (on this process) looks now. */
export function wakeMessageWaiters(deps: HubDeps, namespace: string, sid: string): void {
  for (const waiter of waitersOf(deps).values()) if (waiter.namespace === namespace && (waiter.sid === sid || waiter.sid === undefined)) waiter.wake();
}

/** At shutdown: every waiter answers now with nothing; the agent stays idle until its next stop. */
export function releaseMessageWaiters(deps: HubDeps): void {
  closingStores.add(deps.store);
  for (const waiter of waitersOf(deps).values()) waiter.wake();
}

/** True while a waiter of this agent session waits on this hub (benchmarks and tests wait for it before sending). */
export function hasMessageWaiter(deps: HubDeps, namespace: string, tag: string): boolean {
  return waitersOf(deps).has(`${namespace}\u0000${tag}`);
}
