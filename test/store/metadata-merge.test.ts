/**
 * Spec section 4, rule by rule: first the pure merge functions, then the same rules through the
 * versioned-write service on a real SQLite database, with the history rows they leave.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FLAVORS, PAIRED_KEYS, RESUME_TOKEN_KEYS } from '../../shared/flavors.js';
import type { JsonObject } from '../../shared/protocol/json.js';
import { startSession } from '../../hub/lifecycle/session-start.js';
import { applyMetadataPatch, mergeWholeDocument, PROTECTED_KEYS } from '../../hub/services/metadata-merge.js';
import { updateMetadata } from '../../hub/lifecycle/versioned-writes.js';
import { listHistory } from '../../hub/store/history.js';
import { getSession } from '../../hub/store/sessions.js';
import { openServices, runnerActor, type ServiceHarness } from '../helpers/services.js';

const SPEC_TOKEN_KEYS = [
  'claudeSessionId', 'codexSessionId', 'cursorSessionId', 'geminiSessionId', 'opencodeSessionId', 'kimiSessionId',
  'grokSessionId', 'copilotSessionId', 'piSessionId', 'agySessionId', 'hermesSessionId',
];
const IDENTITY_AND_ROUTING = ['path', 'host', 'flavor', 'machineId'];

describe('protected keys', () => {
  it('are identity, routing, every registry token key and cursorSessionProtocol', () => {
    for (const key of [...IDENTITY_AND_ROUTING, ...SPEC_TOKEN_KEYS, 'cursorSessionProtocol']) expect(PROTECTED_KEYS.has(key), key).toBe(true);
    for (const key of RESUME_TOKEN_KEYS) expect(PROTECTED_KEYS.has(key), key).toBe(true);
    expect(PAIRED_KEYS.get('cursorSessionProtocol')).toBe('cursorSessionId');
    expect(PROTECTED_KEYS.has('title')).toBe(false);
  });
});

describe('mergeWholeDocument', () => {
  it.each([...PROTECTED_KEYS].filter((k) => !PAIRED_KEYS.has(k)))('carries %s forward when the write leaves it out', (key) => {
    const out = mergeWholeDocument({ [key]: 'stored', title: 'old' }, { title: 'new' });
    expect(out.document).toEqual({ [key]: 'stored', title: 'new' });
    expect(out.carried).toEqual([key]);
    expect(out.cleared).toEqual([]);
    expect(out.dropped).toEqual([]);
  });

  it.each([...PROTECTED_KEYS])('lets a sent value of %s win', (key) => {
    const out = mergeWholeDocument({ [key]: 'stored' }, { [key]: 'incoming' });
    expect(out.document).toEqual({ [key]: 'incoming' });
    expect(out.carried).toEqual([]);
  });

  it.each([...PROTECTED_KEYS])('removes %s on an explicit null and lists it as cleared', (key) => {
    const out = mergeWholeDocument({ [key]: 'stored', other: 1 }, { [key]: null, other: 2 });
    expect(out.document).toEqual({ other: 2 });
    expect(out.cleared).toEqual([key]);
    expect(out.carried).toEqual([]);
  });

  it('does not list a null for a protected key that was not stored as cleared', () => {
    const out = mergeWholeDocument({ title: 'x' }, { codexSessionId: null });
    expect(out.document).toEqual({});
    expect(out.cleared).toEqual([]);
  });

  it('replaces unprotected keys: left-out ones go, a null one is stored as null', () => {
    const out = mergeWholeDocument({ title: 'old', summary: 's', claudeSessionId: 'c' }, { title: null, extra: [1, 2] });
    expect(out.document).toEqual({ title: null, extra: [1, 2], claudeSessionId: 'c' });
    expect(out.carried).toEqual(['claudeSessionId']);
    expect(out.cleared).toEqual([]);
  });

  it('never lets a write set, change or remove a hub-owned key', () => {
    expect(mergeWholeDocument({}, { hubSupersededBy: 'x', hubAnything: 1, title: 't' }).document).toEqual({ title: 't' });
    const stored = { hubSupersededBy: 'child', title: 'old' };
    expect(mergeWholeDocument(stored, { title: 'new' }).document).toEqual({ hubSupersededBy: 'child', title: 'new' });
    expect(mergeWholeDocument(stored, { hubSupersededBy: null }).document).toEqual({ hubSupersededBy: 'child' });
    expect(mergeWholeDocument(stored, { hubSupersededBy: 'other' }).document).toEqual({ hubSupersededBy: 'child' });
    const out = mergeWholeDocument(stored, { hubSupersededBy: null });
    expect([...out.carried, ...out.cleared, ...out.dropped]).toEqual([]);
  });

  describe('cursorSessionProtocol pairing', () => {
    const stored = { cursorSessionId: 'cur-1', cursorSessionProtocol: 'acp' };

    it('is carried with its token when the write leaves both out', () => {
      const out = mergeWholeDocument(stored, {});
      expect(out.document).toEqual(stored);
      expect(out.carried.sort()).toEqual(['cursorSessionId', 'cursorSessionProtocol']);
    });

    it('is carried when the token is rewritten to the same value', () => {
      const out = mergeWholeDocument(stored, { cursorSessionId: 'cur-1' });
      expect(out.document).toEqual(stored);
      expect(out.carried).toEqual(['cursorSessionProtocol']);
      expect(out.dropped).toEqual([]);
    });

    it('is dropped when the write sets a different token', () => {
      const out = mergeWholeDocument(stored, { cursorSessionId: 'cur-2' });
      expect(out.document).toEqual({ cursorSessionId: 'cur-2' });
      expect(out.dropped).toEqual(['cursorSessionProtocol']);
      expect(out.carried).toEqual([]);
    });

    it('is dropped when the write clears the token with null', () => {
      const out = mergeWholeDocument(stored, { cursorSessionId: null });
      expect(out.document).toEqual({});
      expect(out.cleared).toEqual(['cursorSessionId']);
      expect(out.dropped).toEqual(['cursorSessionProtocol']);
    });

    it('is carried when the token is rewritten to the same value with its keys in another order', () => {
      // JSON objects are unordered: {b, a} is the token {a, b}
      const objectToken = { cursorSessionId: { a: 1, b: 2 }, cursorSessionProtocol: 'acp' };
      expect(mergeWholeDocument(objectToken, { cursorSessionId: { b: 2, a: 1 } })).toMatchObject({ document: { cursorSessionProtocol: 'acp' }, dropped: [] });
      const arrayToken = { cursorSessionId: [{ a: 1, b: 2 }], cursorSessionProtocol: 'acp' };
      expect(applyMetadataPatch(arrayToken, { cursorSessionId: [{ b: 2, a: 1 }] })).toMatchObject({ document: { cursorSessionProtocol: 'acp' }, dropped: [] });
    });

    it('takes the protocol the write sends with a new token', () => {
      const out = mergeWholeDocument(stored, { cursorSessionId: 'cur-2', cursorSessionProtocol: 'v2' });
      expect(out.document).toEqual({ cursorSessionId: 'cur-2', cursorSessionProtocol: 'v2' });
      expect(out.dropped).toEqual([]);
    });

    it('can be cleared on its own while the token stays', () => {
      const out = mergeWholeDocument(stored, { cursorSessionProtocol: null });
      expect(out.document).toEqual({ cursorSessionId: 'cur-1' });
      expect(out.cleared).toEqual(['cursorSessionProtocol']);
      expect(out.carried).toEqual(['cursorSessionId']);
    });
  });
});

describe('applyMetadataPatch (RFC 7386)', () => {
  it('merges nested objects, removes on null, replaces arrays and scalars, and never lists carried keys', () => {
    const stored: JsonObject = { path: '/p', ui: { theme: 'dark', panes: { left: 1, right: 2 } }, tags: ['a', 'b'], title: 't' };
    const out = applyMetadataPatch(stored, { ui: { panes: { right: null, top: 3 }, font: 'mono' }, tags: ['c'], title: null });
    expect(out.document).toEqual({ path: '/p', ui: { theme: 'dark', font: 'mono', panes: { left: 1, top: 3 } }, tags: ['c'] });
    expect(out.carried).toEqual([]);
    expect(out.cleared).toEqual([]);
    expect(stored.ui).toEqual({ theme: 'dark', panes: { left: 1, right: 2 } });
  });

  it('replaces a non-object with an object and drops nulls inside a new object', () => {
    expect(applyMetadataPatch({ a: 'x' }, { a: { b: 1, c: null } }).document).toEqual({ a: { b: 1 } });
  });

  it.each([...PROTECTED_KEYS])('keeps %s when left out, and lists a null for it as cleared', (key) => {
    expect(applyMetadataPatch({ [key]: 'v' }, { title: 't' })).toEqual({ document: { [key]: 'v', title: 't' }, carried: [], cleared: [], dropped: [] });
    const cleared = applyMetadataPatch({ [key]: 'v' }, { [key]: null });
    expect(cleared.document).toEqual({});
    expect(cleared.cleared).toEqual([key]);
  });

  it('ignores hub-owned keys, whether set, changed or nulled', () => {
    const stored = { hubSupersededBy: 'child' };
    expect(applyMetadataPatch(stored, { hubSupersededBy: null }).document).toEqual(stored);
    expect(applyMetadataPatch(stored, { hubSupersededBy: 'x', hubNew: 1 }).document).toEqual(stored);
    expect(applyMetadataPatch({}, { hubNew: { a: 1 } }).document).toEqual({});
  });

  describe('cursorSessionProtocol pairing', () => {
    const stored = { cursorSessionId: 'cur-1', cursorSessionProtocol: 'acp' };
    it('keeps the protocol when the patch leaves the token out or sends the same one', () => {
      expect(applyMetadataPatch(stored, { title: 'x' }).document).toEqual({ ...stored, title: 'x' });
      expect(applyMetadataPatch(stored, { cursorSessionId: 'cur-1' }).dropped).toEqual([]);
    });
    it('drops it on a different token or a null, unless the patch sends one', () => {
      expect(applyMetadataPatch(stored, { cursorSessionId: 'cur-2' })).toMatchObject({ document: { cursorSessionId: 'cur-2' }, dropped: ['cursorSessionProtocol'] });
      expect(applyMetadataPatch(stored, { cursorSessionId: null })).toMatchObject({ document: {}, cleared: ['cursorSessionId'], dropped: ['cursorSessionProtocol'] });
      expect(applyMetadataPatch(stored, { cursorSessionId: 'cur-2', cursorSessionProtocol: 'v2' })).toMatchObject({
        document: { cursorSessionId: 'cur-2', cursorSessionProtocol: 'v2' },
        dropped: [],
      });
    });
    it('judges the token by the value the patch leaves, not by the patch text (an object token merges)', () => {
      // the patch changes {a: null} into {}: a different token, so the protocol goes (and a retry keeps it gone)
      const objectToken = { cursorSessionId: { a: null }, cursorSessionProtocol: 'acp' };
      expect(applyMetadataPatch(objectToken, { cursorSessionId: { a: null } })).toMatchObject({ document: { cursorSessionId: {} }, dropped: ['cursorSessionProtocol'] });
      // {} merges into {a: 1} as no change: the same token, so the protocol stays
      const unchanged = { cursorSessionId: { a: 1 }, cursorSessionProtocol: 'acp' };
      expect(applyMetadataPatch(unchanged, { cursorSessionId: {} })).toEqual({ document: unchanged, carried: [], cleared: [], dropped: [] });
    });
  });
});

describe('the merge rules through the store', () => {
  let h: ServiceHarness;
  beforeEach(() => {
    h = openServices({ file: ':memory:' });
  });
  afterEach(() => h.close());

  const actor = runnerActor();
  const start = async (flavor: string, metadata: JsonObject, tag = `tag-${flavor}`) =>
    (await startSession(h.deps, actor, { tag, flavor, source: 'startup', metadata })).session;
  const write = (sid: string, expectedVersion: number, body: { metadata: JsonObject } | { patch: JsonObject }) =>
    updateMetadata(h.deps, actor, { sid, expectedVersion, ...body });
  const stored = async (sid: string) => (await getSession(h.deps.store, { namespace: 'default', sid }))!;

  it('keeps a history row for every version, v1 from session-start included', async () => {
    const session = await start('claude', { path: '/p', host: 'h', claudeSessionId: 'c1', title: 'one' });
    h.clock.advance(10);
    expect(await write(session.sid, 1, { metadata: { title: 'two' } })).toMatchObject({ result: 'success', version: 2 });
    h.clock.advance(10);
    expect(await write(session.sid, 2, { metadata: { claudeSessionId: null, host: 'h2' } })).toMatchObject({ result: 'success', version: 3 });
    h.clock.advance(10);
    expect(await write(session.sid, 3, { patch: { title: 'four', path: null } })).toMatchObject({ result: 'success', version: 4 });

    const history = await listHistory(h.deps.store, session.sid);
    const t0 = session.createdAt;
    expect(history).toEqual([
      { version: 1, at: t0, by: 'runner', carried: [], cleared: [], dropped: [], metadata: { path: '/p', host: 'h', claudeSessionId: 'c1', title: 'one' } },
      { version: 2, at: t0 + 10, by: 'runner', carried: ['path', 'host', 'claudeSessionId'], cleared: [], dropped: [], metadata: { title: 'two', path: '/p', host: 'h', claudeSessionId: 'c1' } },
      { version: 3, at: t0 + 20, by: 'runner', carried: ['path'], cleared: ['claudeSessionId'], dropped: [], metadata: { host: 'h2', path: '/p' } },
      { version: 4, at: t0 + 30, by: 'runner', carried: [], cleared: ['path'], dropped: [], metadata: { host: 'h2', title: 'four' } },
    ]);
    expect(await stored(session.sid)).toMatchObject({ metadataVersion: 4, metadata: history[3]!.metadata });
  });

  it('answers with the stored merged document, not the payload', async () => {
    const session = await start('claude', { path: '/p', claudeSessionId: 'c1' });
    const ack = await write(session.sid, 1, { metadata: { title: 'x', hubSupersededBy: 'nope' } });
    expect(ack).toEqual({ result: 'success', version: 2, metadata: { title: 'x', path: '/p', claudeSessionId: 'c1' } });
  });

  it('writes nothing on a version mismatch', async () => {
    const session = await start('claude', { path: '/p', claudeSessionId: 'c1' });
    expect(await write(session.sid, 5, { metadata: { claudeSessionId: null } })).toEqual({
      result: 'version-mismatch',
      version: 1,
      metadata: { path: '/p', claudeSessionId: 'c1' },
    });
    expect(await listHistory(h.deps.store, session.sid)).toHaveLength(1);
    expect((await stored(session.sid)).metadataVersion).toBe(1);
  });

  it('records cursor pairing drops in the history', async () => {
    const session = await start('cursor', { cursorSessionId: 'cur-1', cursorSessionProtocol: 'acp' });
    await write(session.sid, 1, { metadata: { cursorSessionId: 'cur-1' } });
    await write(session.sid, 2, { patch: { cursorSessionId: 'cur-2' } });
    await write(session.sid, 3, { patch: { cursorSessionProtocol: 'v2' } });
    await write(session.sid, 4, { metadata: { cursorSessionId: null } });
    const history = (await listHistory(h.deps.store, session.sid)).map(({ version, carried, cleared, dropped, metadata }) => ({ version, carried, cleared, dropped, metadata }));
    expect(history.slice(1)).toEqual([
      { version: 2, carried: ['cursorSessionProtocol'], cleared: [], dropped: [], metadata: { cursorSessionId: 'cur-1', cursorSessionProtocol: 'acp' } },
      { version: 3, carried: [], cleared: [], dropped: ['cursorSessionProtocol'], metadata: { cursorSessionId: 'cur-2' } },
      { version: 4, carried: [], cleared: [], dropped: [], metadata: { cursorSessionId: 'cur-2', cursorSessionProtocol: 'v2' } },
      { version: 5, carried: [], cleared: ['cursorSessionId'], dropped: ['cursorSessionProtocol'], metadata: {} },
    ]);
  });

  it('keeps hub-owned keys against whole-document and patch writes, and the hub write has a history row by hub', async () => {
    const parent = await start('claude', { claudeSessionId: 'c1' }, 'parent');
    const child = (await startSession(h.deps, actor, { tag: 'child', flavor: 'claude', source: 'clear', parentSid: parent.sid })).session;
    expect((await stored(parent.sid)).metadata).toEqual({ claudeSessionId: 'c1', hubSupersededBy: child.sid });
    const hubRow = (await listHistory(h.deps.store, parent.sid))[1]!;
    expect(hubRow).toMatchObject({ version: 2, by: 'hub', carried: [], cleared: [], dropped: [] });

    expect(await write(parent.sid, 2, { metadata: { hubSupersededBy: null, title: 'a' } })).toMatchObject({ metadata: { hubSupersededBy: child.sid, title: 'a' } });
    expect(await write(parent.sid, 3, { metadata: {} })).toMatchObject({ metadata: { hubSupersededBy: child.sid, claudeSessionId: 'c1' } });
    expect(await write(parent.sid, 4, { patch: { hubSupersededBy: null } })).toMatchObject({ metadata: { hubSupersededBy: child.sid } });
    expect(await write(parent.sid, 5, { patch: { hubSupersededBy: 'someone-else', hubOther: 1 } })).toMatchObject({ version: 6 });
    expect((await stored(parent.sid)).metadata).toEqual({ hubSupersededBy: child.sid, claudeSessionId: 'c1' });
    expect((await stored(child.sid)).metadata).toEqual({});
    expect(await write(child.sid, 1, { metadata: { hubSupersededBy: 'x' } })).toEqual({ result: 'success', version: 2, metadata: {} });
  });

  it('lets a runner clear a protected key it set at session-start, and never carries it afterwards', async () => {
    const session = await start('codex', { codexSessionId: 'thread-1', path: '/p' });
    await write(session.sid, 1, { metadata: { codexSessionId: null } });
    await write(session.sid, 2, { metadata: { title: 'after /clear' } });
    expect((await stored(session.sid)).metadata).toEqual({ title: 'after /clear', path: '/p' });
  });

  describe.each([...FLAVORS.values()].map((f) => [f.id, f.resumeTokenKey] as const))('flavor %s (token key %s)', (flavor, tokenKey) => {
    it('carries the token through a sparse write, lets a value win and clears it only on null', async () => {
      const session = await start(flavor, { [tokenKey]: 'tok-1', path: '/p' });
      expect(await write(session.sid, 1, { metadata: { title: 'sparse' } })).toEqual({ result: 'success', version: 2, metadata: { title: 'sparse', [tokenKey]: 'tok-1', path: '/p' } });
      expect(await write(session.sid, 2, { metadata: { [tokenKey]: 'tok-2' } })).toMatchObject({ metadata: { [tokenKey]: 'tok-2', path: '/p' } });
      expect(await write(session.sid, 3, { patch: { title: 'x' } })).toMatchObject({ metadata: { [tokenKey]: 'tok-2' } });
      expect(await write(session.sid, 4, { metadata: { [tokenKey]: null } })).toEqual({ result: 'success', version: 5, metadata: { path: '/p' } });

      const history = await listHistory(h.deps.store, session.sid);
      expect(history.map((r) => r.version)).toEqual([1, 2, 3, 4, 5]);
      expect(history[1]!.carried).toContain(tokenKey);
      expect(history[2]!.carried).not.toContain(tokenKey);
      expect(history[3]!.carried).toEqual([]);
      expect(history[4]!.cleared).toEqual([tokenKey]);
    });
  });
});
