/**
 * The registry of background hooks waiting for a person's message (message-wait.ts), per hub: every
 * waiter of an agent session stays registered until its own wait ends (never displaced by another:
 * a waiter that proved nothing takes nothing, and the agent's own earlier waiter must still be able
 * to wake it); a message for the session wakes them all, and the first to take it wins.
 */
import type { Store } from '../store/sql.js';
import type { HubDeps } from '../services/deps.js';

export interface MessageWaiter {
  namespace: string;
  /** Its hub session, once found by tag. */
  sid: string | undefined;
  /** When its wait ends (epoch ms, the hub's clock): shown as how long a reply wakes the agent. */
  until: number;
  /** Set by wake(); the waiter looks again before it sleeps. */
  woken: boolean;
  wake(): void;
}

/** Per store (per hub, even several in one test process): agent session key -> its waiters. */
const waitersByStore = new WeakMap<Store, Map<string, Set<MessageWaiter>>>();
const closingStores = new WeakSet<Store>();

function waitersOf(deps: HubDeps): Map<string, Set<MessageWaiter>> {
  let waiters = waitersByStore.get(deps.store);
  if (!waiters) waitersByStore.set(deps.store, (waiters = new Map()));
  return waiters;
}

/** Registers a waiter of `key` beside any others; the returned function removes it. */
export function registerWaiter(deps: HubDeps, key: string, waiter: MessageWaiter): () => void {
  const waiters = waitersOf(deps);
  const same = waiters.get(key) ?? new Set<MessageWaiter>();
  same.add(waiter);
  waiters.set(key, same);
  return () => {
    same.delete(waiter);
    if (same.size === 0 && waiters.get(key) === same) waiters.delete(key);
  };
}

export function isClosing(deps: HubDeps): boolean {
  return closingStores.has(deps.store);
}

function* everyWaiter(deps: HubDeps): Iterable<MessageWaiter> {
  for (const same of waitersOf(deps).values()) yield* same;
}

/** After a message for `sid` commits: its waiters (on this process) look now. */
export function wakeMessageWaiters(deps: HubDeps, namespace: string, sid: string): void {
  for (const waiter of everyWaiter(deps)) if (waiter.namespace === namespace && (waiter.sid === sid || waiter.sid === undefined)) waiter.wake();
}

/** At shutdown: every waiter answers now with nothing; the agent stays idle until its next stop. */
export function releaseMessageWaiters(deps: HubDeps): void {
  closingStores.add(deps.store);
  for (const waiter of everyWaiter(deps)) waiter.wake();
}

/** How many waiters of this agent session wait on this hub (benchmarks and tests wait for one before sending). */
export function messageWaitersOf(deps: HubDeps, namespace: string, tag: string): number {
  return waitersOf(deps).get(`${namespace}\u0000${tag}`)?.size ?? 0;
}

/** When the latest-ending waiter of this agent session on this hub gives up; undefined: none waits here now. */
export function liveWaiterUntil(deps: HubDeps, namespace: string, tag: string): number | undefined {
  const same = waitersOf(deps).get(`${namespace}\u0000${tag}`);
  if (!same || same.size === 0) return undefined;
  return Math.max(...[...same].map((waiter) => waiter.until));
}

export function hasMessageWaiter(deps: HubDeps, namespace: string, tag: string): boolean {
  return messageWaitersOf(deps, namespace, tag) > 0;
}
