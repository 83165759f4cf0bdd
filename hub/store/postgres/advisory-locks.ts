import { createHash } from 'node:crypto';

/**
 * PostgreSQL advisory lock keys of the hub. Advisory locks are per database, so hubs on different
 * databases never contend. The single-bigint keys and the (int4, int4) pairs are separate key spaces
 * in PostgreSQL, so a named lock can never collide with the write or migration lock.
 */

/** Held (transaction-scoped) by every write transaction of every hub process: see PgStore.transaction. */
// (bigints as decimal text: past Number.MAX_SAFE_INTEGER; any fixed value works)
export const WRITE_LOCK_KEY = '7345918210411000001';

/** Held (session-scoped) while one process applies migrations. */
export const MIGRATION_LOCK_KEY = '7345918210411000002';

/** The class (first int4) of every `tryExclusive` lock. */
const EXCLUSIVE_CLASS = 0x5e55_1000;

/** The (int4, int4) key of the cluster-wide lock `name`: a stable hash, the same in every process. */
export function exclusiveLockKey(name: string): [number, number] {
  return [EXCLUSIVE_CLASS, createHash('sha256').update(name).digest().readInt32BE(0)];
}
