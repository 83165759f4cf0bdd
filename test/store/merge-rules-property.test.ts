/**
 * Property checks of the pure merge functions (hub/services/metadata-merge.ts) against an independent
 * restatement of spec sections 3 and 4: RFC 7386 at every nesting level, protected keys holding any
 * JSON value (numbers, objects, arrays, ''), hub-owned keys, the cursor pairing under every
 * combination, the history lists, idempotence, whole-document writes agreeing with the equivalent
 * patch, and prototype-ish names (`constructor`, `toString`) as plain data.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RESUME_TOKEN_KEYS } from '../../shared/flavors.js';
import type { JsonObject, JsonValue } from '../../shared/protocol/json.js';
import { applyMetadataPatch, mergeWholeDocument, type MergeOutcome } from '../../hub/services/metadata-merge.js';

const PROTECTED = ['path', 'host', 'flavor', 'machineId', ...RESUME_TOKEN_KEYS, 'cursorSessionProtocol'];
// data keys that collide with Object.prototype names, and names that only look hub-ish
const PLAIN = ['title', 'a', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'Hub', 'hu', 'xhub'];
const HUB = ['hubSupersededBy', 'hub', 'hubX'];
const TOP_KEYS = [...PROTECTED, ...PLAIN, ...HUB];
const NESTED_KEYS = ['a', 'b', 'hubX', 'constructor', 'cursorSessionId'];

const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
const isHub = (k: string) => k.startsWith('hub');
const isProtected = (k: string) => PROTECTED.includes(k);
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const same = (a: unknown, b: unknown) => isDeepStrictEqual(a, b);
/** Deep equality that treats `constructor` as data (expect().toStrictEqual compares it as the class). */
function expectSame(actual: unknown, expected: unknown): void {
  if (!isDeepStrictEqual(actual, expected)) expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
  expect(isDeepStrictEqual(actual, expected)).toBe(true);
}
/** True when an object somewhere inside holds a null (a whole document stores it, a patch removes it). */
const hasNullInObject = (v: JsonValue): boolean =>
  Array.isArray(v) ? v.some(hasNullInObject) : isObject(v) ? Object.values(v).some((x) => x === null || hasNullInObject(x)) : false;

// ---- generators: JSON as a runner would send it (plain objects from JSON.parse, small key sets so
// nested keys collide with stored ones) ----

const { json } = fc.letrec<{ json: JsonValue }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -2, max: 2 }),
    fc.constantFrom('', 'x', 'y'),
    fc.array(tie('json'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...NESTED_KEYS), tie('json'), { maxKeys: 3, noNullPrototype: true }),
  ),
}));
const nonNull = json.filter((v) => v !== null);
const token = fc.oneof(fc.constantFrom('c1', 'c2', ''), json);

/** A stored document: no null on a protected key (every write path strips or removes those). */
const storedDoc: fc.Arbitrary<JsonObject> = fc
  .dictionary(fc.constantFrom(...TOP_KEYS), json, { maxKeys: 8, noNullPrototype: true })
  .chain((doc) =>
    fc.record({ id: fc.option(token.filter((v) => v !== null), { nil: undefined }), proto: fc.option(nonNull, { nil: undefined }) }).map(({ id, proto }) => {
      const out: JsonObject = { ...doc };
      for (const k of PROTECTED) if (out[k] === null) delete out[k];
      if (id !== undefined) out.cursorSessionId = id;
      if (proto !== undefined) out.cursorSessionProtocol = proto;
      return out;
    }),
  );

/** The same JSON value with every object's keys in reverse order (JSON objects are unordered). */
const reversedKeys = (v: JsonValue): JsonValue =>
  Array.isArray(v) ? v.map(reversedKeys) : isObject(v) ? Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reversedKeys(x)])) : v;

/** An incoming document or patch, often touching the cursor pair (same id, same id with its keys reordered, new id, null, protocol alone). */
const incomingDoc = (stored: JsonObject): fc.Arbitrary<JsonObject> =>
  fc
    .record({
      body: fc.dictionary(fc.constantFrom(...TOP_KEYS), json, { maxKeys: 6, noNullPrototype: true }),
      id: fc.constantFrom('leave', 'same', 'reordered', 'null', 'new'),
      newId: token,
      proto: fc.option(json, { nil: undefined }),
    })
    .map(({ body, id, newId, proto }) => {
      const out: JsonObject = { ...body };
      delete out.cursorSessionId;
      delete out.cursorSessionProtocol;
      if (id === 'same' && has(stored, 'cursorSessionId')) out.cursorSessionId = structuredClone(stored.cursorSessionId!);
      if (id === 'reordered' && has(stored, 'cursorSessionId')) out.cursorSessionId = reversedKeys(stored.cursorSessionId!);
      if (id === 'null') out.cursorSessionId = null;
      if (id === 'new') out.cursorSessionId = newId;
      if (proto !== undefined) out.cursorSessionProtocol = proto;
      return out;
    });

const pair = storedDoc.chain((stored) => incomingDoc(stored).map((incoming) => ({ stored, incoming })));

// ---- the model ----

function rfc7386(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isObject(patch)) return patch;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = rfc7386(has(out, k) ? out[k] : undefined, v);
  }
  return out;
}

/** Section 4's pairing: a new or cleared cursorSessionId drops a protocol the write does not send. */
function protocolDrops(stored: JsonObject, incoming: JsonObject, resultingId: JsonValue | undefined): boolean {
  if (has(incoming, 'cursorSessionProtocol') || !has(stored, 'cursorSessionProtocol') || !has(incoming, 'cursorSessionId')) return false;
  return incoming.cursorSessionId === null || !same(resultingId, stored.cursorSessionId);
}

function modelPatch(stored: JsonObject, patch: JsonObject): JsonObject {
  const runnerPart = Object.fromEntries(Object.entries(patch).filter(([k]) => !isHub(k)));
  const out = rfc7386(stored, runnerPart) as JsonObject;
  if (protocolDrops(stored, patch, out.cursorSessionId)) delete out.cursorSessionProtocol;
  return out;
}

function modelWhole(stored: JsonObject, incoming: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(incoming)) if (!isHub(k) && !(v === null && isProtected(k))) out[k] = v;
  for (const k of PROTECTED) if (!has(incoming, k) && has(stored, k)) out[k] = stored[k]!;
  if (protocolDrops(stored, incoming, out.cursorSessionId)) delete out.cursorSessionProtocol;
  for (const k of Object.keys(stored)) if (isHub(k)) out[k] = stored[k]!;
  return out;
}

/** What the history lists must say, derived from the before/after documents alone. */
function expectedLists(stored: JsonObject, incoming: JsonObject, result: JsonObject, whole: boolean) {
  const sorted = (keys: string[]) => [...keys].sort();
  return {
    carried: whole ? sorted(PROTECTED.filter((k) => !has(incoming, k) && has(result, k))) : [],
    cleared: sorted(PROTECTED.filter((k) => incoming[k] === null && has(stored, k))),
    dropped: has(stored, 'cursorSessionProtocol') && !has(incoming, 'cursorSessionProtocol') && !has(result, 'cursorSessionProtocol') ? ['cursorSessionProtocol'] : [],
  };
}

function checkOutcome(outcome: MergeOutcome, expected: JsonObject, stored: JsonObject, incoming: JsonObject, whole: boolean): void {
  expectSame(outcome.document, expected);
  expect(Object.getPrototypeOf(outcome.document)).toBe(Object.prototype);
  const lists = expectedLists(stored, incoming, outcome.document, whole);
  expect({ carried: [...outcome.carried].sort(), cleared: [...outcome.cleared].sort(), dropped: [...outcome.dropped].sort() }).toEqual(lists);
}

const RUNS = { numRuns: 2000 };

describe('merge rules, as properties', () => {
  it('a patch is RFC 7386 at every level, minus hub-owned keys, plus the cursor pairing; its lists match', () => {
    fc.assert(
      fc.property(pair, ({ stored, incoming }) => {
        const before = structuredClone(stored);
        checkOutcome(applyMetadataPatch(stored, incoming), modelPatch(stored, incoming), stored, incoming, false);
        expectSame(stored, before); // the stored document is never mutated
      }),
      RUNS,
    );
  });

  it('a whole document replaces, except protected keys (any JSON value), hub-owned keys and the pairing; its lists match', () => {
    fc.assert(
      fc.property(pair, ({ stored, incoming }) => {
        const before = structuredClone(stored);
        checkOutcome(mergeWholeDocument(stored, incoming), modelWhole(stored, incoming), stored, incoming, true);
        expectSame(stored, before);
      }),
      RUNS,
    );
  });

  it('hub-owned keys of the stored document stand, and no other hub-owned key appears, whatever the write', () => {
    fc.assert(
      fc.property(pair, ({ stored, incoming }) => {
        for (const outcome of [applyMetadataPatch(stored, incoming), mergeWholeDocument(stored, incoming)]) {
          const hubKeys = (doc: JsonObject) => Object.fromEntries(Object.entries(doc).filter(([k]) => isHub(k)));
          expectSame(hubKeys(outcome.document), hubKeys(stored));
        }
      }),
      RUNS,
    );
  });

  it('applying the same write twice gives the same document (idempotence), with nothing left to clear or drop', () => {
    fc.assert(
      fc.property(pair, ({ stored, incoming }) => {
        for (const merge of [applyMetadataPatch, mergeWholeDocument]) {
          const once = merge(stored, incoming);
          const twice = merge(once.document, incoming);
          expectSame(twice.document, once.document);
          expect(twice.cleared).toEqual([]);
          expect(twice.dropped).toEqual([]);
        }
      }),
      RUNS,
    );
  });

  it('a whole document and the patch that says the same thing (nulls for what it leaves out) agree', () => {
    fc.assert(
      fc.property(pair, ({ stored, incoming }) => {
        // only where replace and merge mean the same: no nulls, and no object written over an object
        const whole: JsonObject = {};
        for (const [k, v] of Object.entries(incoming)) if (v !== null && !hasNullInObject(v) && !(isObject(v) && isObject(stored[k]))) whole[k] = v;
        const patch: JsonObject = { ...whole };
        for (const k of Object.keys(stored)) if (!has(whole, k) && !isProtected(k) && !isHub(k)) patch[k] = null;
        const a = mergeWholeDocument(stored, whole);
        const b = applyMetadataPatch(stored, patch);
        expectSame(a.document, b.document);
        expect(a.dropped).toEqual(b.dropped);
        expect(a.cleared).toEqual(b.cleared);
      }),
      RUNS,
    );
  });
});
