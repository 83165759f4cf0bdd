/**
 * JSON keys that could change an object's prototype in code that copies a parsed body: `__proto__`,
 * and `constructor` holding a `prototype`. Fastify's parser refuses them with a bare "Body is not
 * valid JSON"; a hook payload is an agent's own JSON (a tool's input may hold any key), so the hook
 * route says which key, where, and why (docs/security.md).
 */

/** The path of the first forbidden key in a parsed JSON value (`events.0.payload.x.__proto__`), if any. */
export function forbiddenKeyPath(value: unknown, path: string[] = []): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = forbiddenKeyPath(value[i], [...path, String(i)]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, child] of Object.entries(value)) {
    if (key === '__proto__') return [...path, key].join('.');
    if (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype')) return [...path, key, 'prototype'].join('.');
    const found = forbiddenKeyPath(child, [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A 400 naming the key, for Fastify's error handler (any 4xx becomes `invalid_payload` with this message). */
export function forbiddenKeyError(path: string): Error & { statusCode: number } {
  const key = path.endsWith('.prototype') ? '"constructor" holding "prototype"' : '"__proto__"';
  return Object.assign(new Error(`${path}: a ${key} key is refused (it could change the prototype of objects built from the body); remove or rename that key`), { statusCode: 400 });
}

/** JSON.parse, then the check: JSON.parse itself keeps `__proto__` as a plain own key, changing nothing. */
export function parseJsonRefusingPrototypeKeys(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw Object.assign(new Error(`Body is not valid JSON: ${(error as Error).message}`), { statusCode: 400 });
  }
  const path = forbiddenKeyPath(value);
  if (path !== undefined) throw forbiddenKeyError(path);
  return value;
}
