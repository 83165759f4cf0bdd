/**
 * fast-check arbitraries for hostile payloads: wrong types, huge strings, deep nesting, unicode,
 * and prototype-pollution keys. JSON-decoded objects can carry an own `__proto__` key, so some
 * payloads are built with JSON.parse of crafted text, exactly as the hub's parser would see them.
 */
import fc from 'fast-check';

const POLLUTING_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'] as const;

const key = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...POLLUTING_KEYS));

/** JSON text that decodes to objects with own `__proto__` / constructor.prototype keys. */
const pollutingJson = fc
  .record({
    outer: fc.constantFrom('__proto__', 'constructor', 'metadata', 'patch', 'agentState', 'input'),
    value: fc.constantFrom('{"polluted":"yes"}', '{"prototype":{"polluted":"yes"}}', '{"__proto__":{"polluted":"yes"}}', '"yes"'),
  })
  .map(({ outer, value }) => JSON.parse(`{"${outer}":${value},"__proto__":{"polluted":"yes"}}`) as unknown);

/** Arrays or objects nested far past the 64-level limit. */
const deep = fc.record({ depth: fc.integer({ min: 60, max: 2000 }), asObject: fc.boolean() }).map(({ depth, asObject }) => {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = asObject ? { d: value } : [value];
  return value;
});

/** Strings from just over the field limits to 1.5 MiB (under the 2 MiB frame limit). */
const huge = fc.constantFrom(1025, 70_000, 300_000, 1_500_000).map((n) => 'x'.repeat(n));

const unicode = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.constantFrom('\u0000', '\ud800', '\u202e', '💥'.repeat(300)));

/** Any hostile value, to put in a field or send as the whole payload. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.anything({ key, maxDepth: 3, maxKeys: 5, withNullPrototype: true }) },
  { weight: 1, arbitrary: pollutingJson },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: huge },
  { weight: 2, arbitrary: unicode },
  { weight: 1, arbitrary: fc.constantFrom(-1, 0, 1.5, Number.MAX_SAFE_INTEGER + 2, -0, 1e308, true, null, [], {}) },
);

/** A valid payload with one field replaced, removed, or an extra polluting key added. */
export function mutated(valid: Record<string, unknown>): fc.Arbitrary<unknown> {
  const fields = Object.keys(valid);
  return fc.oneof(
    fc.record({ field: fc.constantFrom(...fields), value: hostileValue }).map(({ field, value }) => ({ ...valid, [field]: value })),
    fc.constantFrom(...fields).map((field) => {
      const copy = { ...valid };
      delete copy[field];
      return copy;
    }),
    fc.constantFrom(...POLLUTING_KEYS).map((k) => JSON.parse(`{${JSON.stringify(k)}:{"polluted":"yes"},${JSON.stringify(valid).slice(1)}`) as unknown),
  );
}

/** Whole payloads: a mutated valid one most of the time, anything at all otherwise. */
export function hostilePayload(valid: Record<string, unknown>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 3, arbitrary: mutated(valid) }, { weight: 1, arbitrary: hostileValue });
}
