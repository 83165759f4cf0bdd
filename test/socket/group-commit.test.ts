import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { hubError } from '../../shared/errors.js';
import { startSession as startSessionService } from '../../hub/lifecycle/session-start.js';
import { runWriteBatched } from '../../hub/services/changes.js';
import { applyMetadataPatch } from '../../hub/services/metadata-merge.js';
import { commitMetadataVersion } from '../../hub/services/metadata-writes.js';
import { requireSession } from '../../hub/services/require-session.js';
import { updateMetadataBatched } from '../../hub/services/versioned-writes.js';
import { getSession } from '../../hub/store/sessions.js';
import { collectUpdates, connectRunner, startSession, waitFor } from '../helpers/clients.js';
import { closeTestHubsAfterEach, startTestHub, type TestHub } from '../helpers/hub.js';
import { openServices, runnerActor, type ServiceHarness } from '../helpers/services.js';

let harness: ServiceHarness | undefined;
let hub: TestHub | undefined;
closeTestHubsAfterEach();
afterEach(() => {
  harness?.close();
  harness = undefined;
});

const actor = runnerActor();

function newSession(h: ServiceHarness): string {
  return startSessionService(h.deps, actor, { tag: `t-${Math.random()}`, flavor: 'claude', source: 'startup', metadata: { path: '/p' } }).session.sid;
}

describe('group commit of update-metadata', () => {
  it('settles a write only once its batch is committed: another connection already sees it', async () => {
    harness = openServices();
    const h = harness;
    const sids = [newSession(h), newSession(h), newSession(h)];
    // a second connection sees committed data only
    const reader = new Database(h.deps.db.name, { readonly: true });
    const committedVersion = (sid: string) => getSession(reader, { namespace: 'default', sid })!.metadataVersion;
    try {
      const seenAtAck: number[] = [];
      const writes = sids.map((sid) =>
        updateMetadataBatched(h.deps, actor, { sid, expectedVersion: 1, patch: { title: sid } }).then((ack) => {
          seenAtAck.push(committedVersion(sid));
          return ack;
        }),
      );
      // queued, not yet run: nothing is stored or published before the batch commits
      expect(sids.map(committedVersion)).toEqual([1, 1, 1]);
      expect(h.published.filter((e) => e.event.body.t === 'update-session')).toEqual([]);

      const acks = await Promise.all(writes);
      expect(acks.map((a) => a.result === 'success' && a.version)).toEqual([2, 2, 2]);
      expect(seenAtAck).toEqual([2, 2, 2]);
      expect(h.published.filter((e) => e.event.body.t === 'update-session').map((e) => e.sid)).toEqual(sids);
    } finally {
      reader.close();
    }
  });

  it('rolls back only the write that fails; the others in its batch commit, answer and publish', async () => {
    harness = openServices();
    const h = harness;
    const [a, b, c] = [newSession(h), newSession(h), newSession(h)];
    const seqBefore = Math.max(0, ...h.published.map((e) => e.event.seq));
    h.published.length = 0;

    const first = updateMetadataBatched(h.deps, actor, { sid: a, expectedVersion: 1, patch: { title: 'a' } });
    // a unit of work that stores a version and then fails: its savepoint must undo all of it
    const failing = runWriteBatched(h.deps, (changes, now) => {
      const session = requireSession(h.deps, actor, b);
      commitMetadataVersion(h.deps.db, changes, { session, outcome: applyMetadataPatch(session.metadata, { title: 'b' }), by: 'runner', now });
      throw hubError.conflict('fails after writing');
    });
    const unknown = updateMetadataBatched(h.deps, actor, { sid: 'no-such-session', expectedVersion: 1, patch: { x: 1 } });
    const last = updateMetadataBatched(h.deps, actor, { sid: c, expectedVersion: 1, patch: { title: 'c' } });

    const settled = await Promise.allSettled([first, failing, unknown, last]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(settled[1]).toMatchObject({ reason: { code: 'conflict' } });
    expect(settled[2]).toMatchObject({ reason: { code: 'not_found' } });

    expect(requireSession(h.deps, actor, a).metadata).toMatchObject({ title: 'a' });
    const untouched = requireSession(h.deps, actor, b);
    expect(untouched.metadataVersion).toBe(1);
    expect(untouched.metadata).not.toHaveProperty('title');
    expect(requireSession(h.deps, actor, c).metadataVersion).toBe(2);
    // only the committed writes were published, and the failed one left no gap in seq
    expect(h.published.map((e) => e.sid)).toEqual([a, c]);
    expect(h.published.map((e) => e.event.seq)).toEqual([seqBefore + 1, seqBefore + 2]);
  });

  it("keeps a runner's pipelined writes in order over a real socket and answers each one", async () => {
    hub = await startTestHub();
    const writer = await connectRunner(hub.url, hub.tokens.runner);
    const other = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(writer);
    await other.emitWithAck('session-join', { sid: session.sid });
    const seen = collectUpdates(other);

    // sent back to back without waiting: they arrive together and commit in batches
    const acks = await Promise.all(
      Array.from({ length: 20 }, (_, i) => writer.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: i + 1, patch: { step: i } })),
    );
    expect(acks.map((a) => a.result === 'success' && a.version)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    const bad = await writer.emitWithAck('update-metadata', { sid: 'missing', expectedVersion: 1, patch: {} });
    expect(bad).toMatchObject({ result: 'error', code: 'not_found' });

    await waitFor(() => seen.filter((e) => e.body.t === 'update-session').length === 20, 3000, 'broadcasts');
    const versions = seen.flatMap((e) => (e.body.t === 'update-session' && e.body.metadata ? [e.body.metadata.version] : []));
    expect(versions).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
  });
});

describe('a delivery failure after commit', () => {
  it('still answers every write of the batch, and the next unit of work, with what was stored', async () => {
    harness = openServices();
    const h = harness;
    const [a, b] = [newSession(h), newSession(h)];
    let failures = 0;
    const publish = h.deps.publisher.publish;
    // the delivery layer fails for every publish from now on (say, an adapter error)
    h.deps.publisher.publish = () => {
      failures++;
      throw new Error('delivery failed');
    };
    try {
      const acks = await Promise.all([
        updateMetadataBatched(h.deps, actor, { sid: a, expectedVersion: 1, patch: { title: 'a' } }),
        updateMetadataBatched(h.deps, actor, { sid: b, expectedVersion: 1, patch: { title: 'b' } }),
      ]);
      expect(acks.map((ack) => ack.result === 'success' && ack.version)).toEqual([2, 2]);
      // a synchronous unit of work after them answers too
      const started = startSessionService(h.deps, actor, { tag: 'after', flavor: 'claude', source: 'startup' });
      expect(started.created).toBe(true);
      expect(failures).toBe(3);
    } finally {
      h.deps.publisher.publish = publish;
    }
    expect(requireSession(h.deps, actor, a).metadataVersion).toBe(2);
    expect(requireSession(h.deps, actor, b).metadataVersion).toBe(2);
  });
});
