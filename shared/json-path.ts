/** Reading agent hook payloads by dot path (`a.b.c`, `roots.0`); no zod, so a bundled bridge can import it. */

/** The value at a dot path of a plain JSON object, or undefined. */
export function readPath(payload: unknown, path: string): unknown {
  let value: unknown = payload;
  for (const part of path.split('.')) {
    if (Array.isArray(value) && /^\d+$/.test(part)) value = value[Number(part)];
    else if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    else value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** The non-empty string at a dot path, or undefined. */
export function readText(payload: unknown, path: string): string | undefined {
  const value = readPath(payload, path);
  return typeof value === 'string' && value !== '' ? value : undefined;
}
