/**
 * Spec section 12's 64 KiB limit applies to the document that would be stored, not only to what was
 * sent: a small patch (or a sparse whole document whose carried keys come back) that makes the merged
 * document too large is refused with `payload_too_large`, and nothing is written. Real services on a
 * real SQLite database.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../shared/protocol/limits.js';
import type { JsonObject } from '../../shared/protocol/json.js';
import { startSession } from '../../hub/lifecycle/session-start.js';
import { updateMetadata } from '../../hub/lifecycle/versioned-writes.js';
import { listHistory } from '../../hub/store/history.js';
import { getSession } from '../../hub/store/sessions.js';
import { openServices, runnerActor, type ServiceHarness } from '../helpers/services.js';

const bytes = (doc: unknown) => Buffer.byteLength(JSON.stringify(doc));

describe('the document limit counts the merged document', () => {
  let h: ServiceHarness;
  beforeAll(() => {
    h = openServices({ file: ':memory:' });
  });
  afterAll(() => h.close());

  const actor = runnerActor();
  let tags = 0;
  const start = async (metadata: JsonObject) => (await startSession(h.deps, actor, { tag: `size-${tags++}`, flavor: 'claude', source: 'startup', metadata })).session;
  const stored = async (sid: string) => (await getSession(h.deps.store, { namespace: 'default', sid }))!;

  /** Refused with payload_too_large, and the session's document, version and history are untouched. */
  async function expectRefused(sid: string, body: { metadata: JsonObject } | { patch: JsonObject }): Promise<void> {
    const before = await stored(sid);
    const historyBefore = (await listHistory(h.deps.store, sid)).length;
    // (an over-large payload is refused before the unit of work, by a synchronous throw)
    const write = async () => updateMetadata(h.deps, actor, { sid, expectedVersion: before.metadataVersion, ...body });
    await expect(write()).rejects.toMatchObject({ code: 'payload_too_large' });
    const after = await stored(sid);
    expect(after.metadataVersion).toBe(before.metadataVersion);
    expect(after.metadata).toEqual(before.metadata);
    expect(await listHistory(h.deps.store, sid)).toHaveLength(historyBefore);
  }

  it('refuses a small patch or a sparse whole document that the merge makes larger than 64 KiB', async () => {
    // a resume token is at most 256 characters (shared/flavors.ts): a long one, and a summary that
    // fits the limit alone but not beside it
    const token = `c${'x'.repeat(200)}`;
    const summary = 'x'.repeat(LIMITS.maxDocumentBytes - 100);
    const session = await start({ claudeSessionId: token, title: 't' });
    await expectRefused(session.sid, { patch: { summary } });
    await expectRefused(session.sid, { metadata: { summary } }); // claudeSessionId is carried back
    // the same sparse write fits once the carried token is small
    const small = await start({ claudeSessionId: 'c1' });
    expect(await updateMetadata(h.deps, actor, { sid: small.sid, expectedVersion: 1, metadata: { summary } })).toMatchObject({ result: 'success', version: 2 });
  });

  it('admits a merged document of exactly the limit and refuses one byte more, however the bytes are split', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 100, max: LIMITS.maxDocumentBytes - 100 }), fc.boolean(), fc.boolean(), async (storedShare, over, whole) => {
        // {"a":"…","b":"…"}: 15 bytes of JSON around the two strings
        const a = 'a'.repeat(storedShare);
        const session = await start({ a });
        const b = 'b'.repeat(LIMITS.maxDocumentBytes - a.length - 15 + (over ? 1 : 0));
        const merged = { a, b };
        expect(bytes(merged)).toBe(LIMITS.maxDocumentBytes + (over ? 1 : 0));
        const body = whole ? { metadata: merged } : { patch: { b } };
        if (over) {
          await expectRefused(session.sid, body);
        } else {
          expect(await updateMetadata(h.deps, actor, { sid: session.sid, expectedVersion: 1, ...body })).toEqual({ result: 'success', version: 2, metadata: merged });
        }
      }),
      { numRuns: 20 },
    );
  });

  it('refuses a session-start whose metadata, merged into the existing session, is too large', async () => {
    const half = 'x'.repeat(LIMITS.maxDocumentBytes / 2);
    const first = await startSession(h.deps, actor, { tag: 'restart-size', flavor: 'claude', source: 'startup', metadata: { title: half } });
    await expect(startSession(h.deps, actor, { tag: 'restart-size', flavor: 'claude', source: 'resume', metadata: { summary: half } })).rejects.toMatchObject({
      code: 'payload_too_large',
    });
    const after = await stored(first.session.sid);
    expect(after.metadataVersion).toBe(1);
    expect(after.metadata).toEqual({ title: half });
  });
});
