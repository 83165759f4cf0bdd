/**
 * JSON keys that could change an object's prototype in code that copies a parsed body: `__proto__`,
 * and `constructor` holding a `prototype`. Fastify's parser refuses them with a bare "Body is not
 * valid JSON"; a hook payload is an agent's own JSON (a tool's input may hold any key), so the hub's
 * body parser says which key, where, and why (docs/security.md).
 */

/** An array or object met on the walk: its key and its parent, so a path is written only for the key found. */
interface Step {
  node: object;
  key: string;
  parent: Step | undefined;
}

function pathOf(step: Step, tail: string[]): string {
  const keys = [...tail];
  for (let at: Step | undefined = step; at?.parent !== undefined; at = at.parent) keys.unshift(at.key);
  return keys.join('.');
}

/**
 * The path of the first forbidden key in a parsed JSON value (`events.0.payload.x.__proto__`), if
 * any. Iterative, stacking only arrays and objects, with no copied paths (issue 33.1: a walk that
 * copied the path at every node took seconds on a wide deep body, and a recursive one overflowed
 * the stack). Siblings are visited last first: which key is named when there are several is no matter.
 */
export function forbiddenKeyPath(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const stack: Step[] = [{ node: value, key: '', parent: undefined }];
  for (let step = stack.pop(); step !== undefined; step = stack.pop()) {
    const { node } = step;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const child: unknown = node[i];
        if (child !== null && typeof child === 'object') stack.push({ node: child, key: String(i), parent: step });
      }
      continue;
    }
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      const child: unknown = (node as Record<string, unknown>)[key];
      if (key === '__proto__') return pathOf(step, [key]);
      if (child === null || typeof child !== 'object') continue;
      if (key === 'constructor' && Object.hasOwn(child, 'prototype')) return pathOf(step, [key, 'prototype']);
      stack.push({ node: child, key, parent: step });
    }
  }
  return undefined;
}

/** A 400 naming the key, for Fastify's error handler (any 4xx becomes `invalid_payload` with this message). */
export function forbiddenKeyError(path: string): Error & { statusCode: number } {
  const key = path.endsWith('.prototype') ? '"constructor" holding "prototype"' : '"__proto__"';
  return Object.assign(new Error(`${path}: a ${key} key is refused (it could change the prototype of objects built from the body); remove or rename that key`), { statusCode: 400 });
}
