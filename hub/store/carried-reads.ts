import { sessionCacheKey, sessionTagCacheKey } from './session-cache-keys.js';
import type { Sql } from './sql.js';

/** A batch read's sessions, by sid or by tag. */
export interface SessionKeys {
  namespace: string;
  sids: readonly string[];
  tags: readonly string[];
}

/**
 * The sessions of a batch read whose rows the transaction does not hold yet: those whose `holds(sid)`
 * is false, or whose tag names no cached session. On PostgreSQL a namespace's rows may be carried
 * over from its previous transaction (sql.ts, Tx.carried), kept current by every write since: what
 * they hold needs no read.
 */
export function sessionsToRead(sql: Sql, input: SessionKeys, holds: (sid: string) => boolean): SessionKeys {
  const cache = sql.rowCache;
  if (!cache || cache.size === 0) return input;
  return {
    namespace: input.namespace,
    sids: input.sids.filter((sid) => !holds(sid)),
    tags: input.tags.filter((tag) => {
      const sid = cache.get(sessionTagCacheKey(input.namespace, tag));
      return typeof sid !== 'string' || !holds(sid);
    }),
  };
}

/** A session the transaction holds, by sid or by tag: its sid, else undefined. */
export function cachedSid(sql: Sql, namespace: string, key: { sid?: string; tag?: string }): string | undefined {
  const cache = sql.rowCache;
  if (!cache) return undefined;
  const sid = key.sid ?? cache.get(sessionTagCacheKey(namespace, key.tag!));
  return typeof sid === 'string' && cache.has(sessionCacheKey(sid)) ? sid : undefined;
}

/** Whether any of the batch read's sessions is left to read. */
export const noneToRead = (keys: SessionKeys) => keys.sids.length === 0 && keys.tags.length === 0;
