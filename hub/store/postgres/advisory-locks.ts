import { createHash } from 'node:crypto';

/**
 * PostgreSQL advisory lock keys of the hub. Advisory locks are per database, so hubs on different
 * databases never contend. The single-bigint keys and the (int4, int4) pairs are separate key spaces
 * in PostgreSQL, so a named lock can never collide with the write or migration lock.
 */

/**
 * The write lock (transaction-scoped): taken EXCLUSIVE by a write transaction of no single namespace
 * (a sweep, a prune), SHARED by a namespace's write transaction, which then also takes its
 * namespace's lock (NAMESPACE_LOCK_CLASS): tenants write in parallel, a namespace's writes one at a
 * time, and an all-namespaces write alone. Always in that order (the write lock first), so two
 * transactions never wait for each other's lock. A hub of an earlier version takes it exclusive for
 * every write, so a mixed cluster stays correct (only slower) during a rolling upgrade.
 */
// (bigints as decimal text: past Number.MAX_SAFE_INTEGER; any fixed value works)
export const WRITE_LOCK_KEY = '7345918210411000001';

/** Held (session-scoped) while one process applies migrations. */
export const MIGRATION_LOCK_KEY = '7345918210411000002';

/** The class (first int4) of the namespace write locks; the second int4 is `hashtext(namespace)` (two namespaces sharing a hash only share a lock). */
export const NAMESPACE_LOCK_CLASS = 0x5e55_2000;

/** The class (first int4) of every `tryExclusive` lock. */
const EXCLUSIVE_CLASS = 0x5e55_1000;

/** The (int4, int4) key of the cluster-wide lock `name`: a stable hash, the same in every process. */
export function exclusiveLockKey(name: string): [number, number] {
  return [EXCLUSIVE_CLASS, createHash('sha256').update(name).digest().readInt32BE(0)];
}
