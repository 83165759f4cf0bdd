/**
 * Random sequences of sparse, stale, null-clearing and overwriting metadata writes (whole documents
 * and patches) from several simulated runners against the real versioned-write service on a real
 * SQLite file, checked against an independent model of spec sections 3 and 4.
 */
import { existsSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../shared/protocol/json.js';
import { startSession } from '../../hub/lifecycle/session-start.js';
import { updateMetadata } from '../../hub/lifecycle/versioned-writes.js';
import { getHistoryVersion, listHistory } from '../../hub/store/history.js';
import { getSession } from '../../hub/store/sessions.js';
import { openServices, runnerActor, type ServiceHarness } from '../helpers/services.js';

const PROTECTED = ['path', 'host', 'flavor', 'machineId', 'claudeSessionId', 'codexSessionId', 'cursorSessionId', 'cursorSessionProtocol'];
const PLAIN = ['title', 'summary'];
const HUB = ['hubSupersededBy', 'hubNote'];
const KEYS = [...PROTECTED, ...PLAIN, ...HUB];
const RUNNERS = 3;

const isHub = (key: string) => key.startsWith('hub');
const isProtected = (key: string) => PROTECTED.includes(key);
const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
const same = (a: unknown, b: unknown) => isDeepStrictEqual(a, b);
/** Plain checks instead of expect(): thousands of writes per run, and fast-check shrinks on a throw. */
function check(condition: boolean, message: string | (() => string)): void {
  if (!condition) throw new Error(typeof message === 'string' ? message : message());
}

// ---- the model: the spec's rules restated independently of hub/services/metadata-merge.ts ----

function protocolDrops(stored: JsonObject, incoming: JsonObject): boolean {
  if (has(incoming, 'cursorSessionProtocol') || !has(incoming, 'cursorSessionId')) return false;
  return incoming.cursorSessionId === null || !same(incoming.cursorSessionId, stored.cursorSessionId);
}

function modelWhole(stored: JsonObject, incoming: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(incoming)) {
    if (isHub(k) || (v === null && isProtected(k))) continue;
    out[k] = v;
  }
  for (const k of PROTECTED) {
    if (has(incoming, k) || !has(stored, k)) continue;
    if (k === 'cursorSessionProtocol' && protocolDrops(stored, incoming)) continue;
    out[k] = stored[k]!;
  }
  for (const k of Object.keys(stored)) if (isHub(k)) out[k] = stored[k]!;
  return out;
}

function rfc7386(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: JsonObject = target && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = rfc7386(out[k], v);
  }
  return out;
}

function modelPatch(stored: JsonObject, patch: JsonObject): JsonObject {
  const withoutHub = Object.fromEntries(Object.entries(patch).filter(([k]) => !isHub(k)));
  const out = rfc7386(stored, withoutHub) as JsonObject;
  if (has(stored, 'cursorSessionProtocol') && protocolDrops(stored, patch)) delete out.cursorSessionProtocol;
  return out;
}

// ---- generators ----

const scalar = fc.constantFrom('a', 'b', 'c');
const plainValue: fc.Arbitrary<JsonValue> = fc.oneof(scalar, fc.constant(null), fc.dictionary(fc.constantFrom('x', 'y'), fc.oneof(scalar, fc.constant(null)), { maxKeys: 2, noNullPrototype: true }));
const entry = fc.constantFrom(...KEYS).chain((key) => fc.tuple(fc.constant(key), PLAIN.includes(key) ? plainValue : fc.oneof(scalar, fc.constant(null))));
const body = fc.array(entry, { maxLength: 6 }).map((entries) => Object.fromEntries(entries) as JsonObject);
const initialDoc = fc.dictionary(fc.constantFrom(...PROTECTED, ...PLAIN), scalar, { maxKeys: 8, noNullPrototype: true });

type Op = { runner: number; kind: 'metadata' | 'patch'; version: 'cached' | 'current' | 'ahead' | 'behind'; body: JsonObject };
const op: fc.Arbitrary<Op> = fc.record({
  runner: fc.integer({ min: 0, max: RUNNERS - 1 }),
  kind: fc.constantFrom('metadata' as const, 'patch' as const),
  version: fc.constantFrom('cached' as const, 'cached' as const, 'current' as const, 'ahead' as const, 'behind' as const),
  body,
});

describe('metadata writes under random sequences (property)', () => {
  let h: ServiceHarness;
  beforeAll(() => {
    // a real database file with its WAL; on tmpfs when there is one, since disk speed is not under test
    h = openServices({ parentDir: existsSync('/dev/shm') ? '/dev/shm' : undefined });
  });
  afterAll(() => h.close());

  it('never loses a protected key except by an explicit null or an overwrite, and versions rise by exactly 1', async () => {
    let run = 0;
    let writes = 0;
    await fc.assert(
      fc.asyncProperty(initialDoc, fc.array(op, { minLength: 1, maxLength: 40 }), async (initial, ops) => {
        run++;
        const actors = Array.from({ length: RUNNERS }, (_, i) => runnerActor('default', `socket-${i}`));
        const parent = (await startSession(h.deps, actors[0]!, { tag: `p-${run}`, flavor: 'cursor', source: 'startup', metadata: initial })).session;
        const child = (await startSession(h.deps, actors[1]!, { tag: `c-${run}`, flavor: 'cursor', source: 'clear', parentSid: parent.sid })).session;
        const sid = parent.sid;

        let model: JsonObject = { ...initial, hubSupersededBy: child.sid };
        let version = 2;
        const cached = Array.from({ length: RUNNERS }, () => ({ version: 1 }));
        const readRow = async () => (await getSession(h.deps.store, { namespace: 'default', sid }))!;
        const initialRow = await readRow();
        check(initialRow.metadataVersion === version && same(initialRow.metadata, model), 'setup');

        for (const o of ops) {
          writes++;
          const expectedVersion = { cached: cached[o.runner]!.version, current: version, ahead: version + 1, behind: Math.max(1, version - 1) }[o.version];
          const publishedBefore = h.published.length;
          const before = model;
          const versionBefore = version;
          const payload = o.kind === 'metadata' ? { metadata: o.body } : { patch: o.body };
          const ack = await updateMetadata(h.deps, actors[o.runner]!, { sid, expectedVersion, ...payload });
          const row = await readRow();
          const context = () => `${o.kind} ${JSON.stringify(o.body)} at v${expectedVersion} onto v${versionBefore} ${JSON.stringify(before)}`;

          if (expectedVersion !== version) {
            // a rejected write changes nothing: not the row, not the history, no event
            check(same(ack, { result: 'version-mismatch', version, metadata: model }), () => `mismatch ack ${JSON.stringify(ack)} for ${context()}`);
            check(row.metadataVersion === version && same(row.metadata, model), () => `rejected write changed the row: ${context()}`);
            check((await getHistoryVersion(h.deps.store, { sid, version: version + 1 })) === undefined, () => `rejected write left a history row: ${context()}`);
            check(h.published.length === publishedBefore, () => `rejected write published: ${context()}`);
            cached[o.runner] = { version };
            continue;
          }

          model = o.kind === 'metadata' ? modelWhole(before, o.body) : modelPatch(before, o.body);
          version++;
          check(same(ack, { result: 'success', version, metadata: model }), () => `ack ${JSON.stringify(ack)} != model ${JSON.stringify(model)} for ${context()}`);
          check(row.metadataVersion === version && same(row.metadata, model), () => `row ${JSON.stringify(row.metadata)} != model for ${context()}`);
          const history = await getHistoryVersion(h.deps.store, { sid, version });
          check(history !== undefined && history.by === 'runner' && same(history.metadata, model), () => `history row of v${version} for ${context()}`);
          const events = h.published.slice(publishedBefore).filter((e) => e.event.body.t === 'update-session');
          check(events.length === 1 && events[0]!.event.body.t === 'update-session' && events[0]!.event.body.metadata?.version === version, () => `event for ${context()}`);
          cached[o.runner] = { version };

          // the invariant itself, stated per key against what was stored before the write
          for (const key of PROTECTED) {
            if (!has(before, key)) continue;
            const sent = has(o.body, key);
            const explicitNull = sent && o.body[key] === null;
            const paired = key === 'cursorSessionProtocol' && protocolDrops(before, o.body);
            if (explicitNull || paired) check(!has(row.metadata, key), () => `${key} survived its clear: ${context()}`);
            else if (sent) check(same(row.metadata[key], o.body[key]), () => `${key} not overwritten: ${context()}`);
            else check(same(row.metadata[key], before[key]), () => `${key} lost: ${context()}`);
          }
          for (const key of HUB) check(same(row.metadata[key], before[key]), () => `hub-owned ${key} changed: ${context()}`);
        }
        check((await listHistory(h.deps.store, sid)).map((r) => r.version).join() === Array.from({ length: version }, (_, i) => i + 1).join(), 'history versions have gaps');
      }),
      { numRuns: 1500, ...(process.env.PROPERTY_SEED ? { seed: Number(process.env.PROPERTY_SEED) } : {}) },
    );
    expect(writes).toBeGreaterThan(6000);
    expect(h.deps.config.databaseFile).not.toBe(':memory:');
  });
});
