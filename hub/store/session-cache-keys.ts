/** Where a transaction's rowCache keeps a session (sessions.ts), and its sid by tag (a tag never changes). */
export const sessionCacheKey = (sid: string) => `session:${sid}`;
export const sessionTagCacheKey = (namespace: string, tag: string) => `session-tag:${namespace}:${tag}`;
