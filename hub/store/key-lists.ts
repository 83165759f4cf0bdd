/**
 * A list of keys as the JSON text a batch read takes (`CAST(@keys AS jsonb)`). PostgreSQL's jsonb
 * refuses U+0000, which the store binds as U+FFFD in every other parameter (postgres/named-params.ts):
 * so here too, and a key holding one finds the row it was written as.
 */
export function keyList(keys: Iterable<string>): string {
  return JSON.stringify([...keys].map((key) => key.replaceAll('\u0000', '\uFFFD')));
}
