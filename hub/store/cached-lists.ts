import type { Sql } from './sql.js';

/**
 * Lists a PostgreSQL transaction keeps in its rowCache, one per session under a key prefix (pending
 * approvals, queued messages): drops the first item `matches` finds from any of them. True when one
 * held it: the batch read it and holds its row under the lock. Never on SQLite (no such lists).
 */
export function removeFromCachedLists<T>(sql: Sql, prefix: string, matches: (item: T) => boolean): boolean {
  if (sql.dialect !== 'postgres' || !sql.rowCache) return false;
  for (const [key, value] of sql.rowCache) {
    if (!key.startsWith(prefix)) continue;
    const list = value as T[];
    const at = list.findIndex(matches);
    if (at < 0) continue;
    list.splice(at, 1);
    return true;
  }
  return false;
}
