import type { Sql } from './sql.js';

/**
 * Keeps one list per session from a batch read's rows (`session_sid`, and a LEFT JOIN's item or
 * nulls for a session with none, which gets an empty list), each under `keyOf(sid)` unless a list is
 * already there (a write of this transaction made it current). `itemOf`: the row's item, or
 * undefined for the LEFT JOIN's empty row; `order`: how each list is sorted (else as the rows came).
 */
export function cacheListsBySession<Row extends { session_sid: string }, Item>(
  cache: Map<string, unknown>,
  rows: readonly Row[],
  keyOf: (sid: string) => string,
  itemOf: (row: Row) => Item | undefined,
  order?: (a: Item, b: Item) => number,
): void {
  const lists = new Map<string, Item[]>();
  for (const row of rows) {
    const list = lists.get(row.session_sid) ?? [];
    const item = itemOf(row);
    if (item !== undefined) list.push(item);
    lists.set(row.session_sid, list);
  }
  for (const [sid, list] of lists) if (!cache.has(keyOf(sid))) cache.set(keyOf(sid), order ? list.sort(order) : list);
}

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
