import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { hubError } from '../../shared/errors.js';
import { startSession as startSessionService } from '../../hub/lifecycle/session-start.js';
import { runWrite } from '../../hub/services/changes.js';
import { applyMetadataPatch } from '../../hub/services/metadata-merge.js';
import { commitMetadataVersion } from '../../hub/services/metadata-writes.js';
import { requireSession } from '../../hub/services/require-session.js';
import { updateMetadata } from '../../hub/lifecycle/versioned-writes.js';
import { getSession } from '../../hub/store/sessions.js';
import { queryText, type Query, type Sql } from '../../hub/store/sql.js';
import { collectUpdates, connectRunner, startSession, waitFor } from '../helpers/clients.js';
import { closeTestHubsAfterEach, startTestHub, type TestHub } from '../helpers/hub.js';
import { openServices, runnerActor, type ServiceHarness } from '../helpers/services.js';

let harness: ServiceHarness | undefined;
let reader: Database.Database | undefined;
let hub: TestHub | undefined;
closeTestHubsAfterEach();
afterEach(async () => {
  reader?.close();
  reader = undefined;
  await harness?.close();
  harness = undefined;
});

const actor = runnerActor();

async function newSession(h: ServiceHarness): Promise<string> {
  return (await startSessionService(h.deps, actor, { tag: `t-${Math.random()}`, flavor: 'claude', source: 'startup', metadata: { path: '/p' } })).session.sid;
}

/**
 * A second connection to the harness's database file: it sees committed rows only, so what it reads
 * while a unit of work runs tells which writes were committed before it.
 */
function committedReader(h: ServiceHarness): (sid: string) => Promise<number> {
  const connection = new Database(h.store.db.name, { readonly: true });
  reader = connection;
  const statement = (query: Query) => connection.prepare(queryText(query, 'sqlite'));
  // the store functions take any Sql; this one answers from the other connection
  const sql: Sql = {
    dialect: 'sqlite',
    get: async <Row>(query: Query, params?: object) => (params ? statement(query).get(params) : statement(query).get()) as Row | undefined,
    all: async <Row>(query: Query, params?: object) => (params ? statement(query).all(params) : statement(query).all()) as Row[],
    run: async () => {
      throw new Error('the committed reader is read-only');
    },
    write: async () => {
      throw new Error('the committed reader is read-only');
    },
  };
  return async (sid: string) => (await getSession(sql, { namespace: 'default', sid }))!.metadataVersion;
}

const updates = (h: ServiceHarness) => h.published.filter((e) => e.event.body.t === 'update-session');

describe('group commit of update-metadata', () => {
  it('settles a write only once its batch is committed: another connection already sees it', async () => {
    harness = openServices();
    const h = harness;
    const sids = [await newSession(h), await newSession(h), await newSession(h)];
    const committedVersion = committedReader(h);
    const seenAtAck: number[] = [];
    const writes = sids.map((sid) =>
      updateMetadata(h.deps, actor, { sid, expectedVersion: 1, patch: { title: sid } }).then(async (ack) => {
        seenAtAck.push(await committedVersion(sid));
        return ack;
      }),
    );
    // queued, not yet run: nothing is stored or published before the batch commits
    expect(await Promise.all(sids.map(committedVersion))).toEqual([1, 1, 1]);
    expect(updates(h)).toEqual([]);

    const acks = await Promise.all(writes);
    expect(acks.map((a) => a.result === 'success' && a.version)).toEqual([2, 2, 2]);
    expect(seenAtAck).toEqual([2, 2, 2]);
    // run and published in arrival order
    expect(updates(h).map((e) => e.sid)).toEqual(sids);
  });

  it('commits writes that arrive together in ONE transaction: none is visible to another connection until all have run', async () => {
    harness = openServices();
    const h = harness;
    const sids = [await newSession(h), await newSession(h), await newSession(h)];
    const committedVersion = committedReader(h);

    const writes = sids.map((sid) => updateMetadata(h.deps, actor, { sid, expectedVersion: 1, patch: { title: sid } }));
    // arrives with them, runs after them in the same transaction: it sees their rows, another connection does not
    const probe = runWrite(h.deps, async (tx) => ({
      inTransaction: await Promise.all(sids.map(async (sid) => (await getSession(tx, { namespace: 'default', sid }))!.metadataVersion)),
      committed: await Promise.all(sids.map(committedVersion)),
    }));

    const [acks, seen] = await Promise.all([Promise.all(writes), probe]);
    expect(acks.map((a) => a.result === 'success' && a.version)).toEqual([2, 2, 2]);
    expect(seen).toEqual({ inTransaction: [2, 2, 2], committed: [1, 1, 1] });
    expect(await Promise.all(sids.map(committedVersion))).toEqual([2, 2, 2]);
  });

  it('forms the next batch from writes arriving while one commits, and keeps arrival order across batches', async () => {
    harness = openServices();
    const h = harness;
    const [a, b, c] = [await newSession(h), await newSession(h), await newSession(h)];
    const committedVersion = committedReader(h);
    h.published.length = 0;

    // the first batch stays open (its unit of work waits) until the later writes have arrived
    let releaseFirst!: () => void;
    const firstMayFinish = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstRunning!: () => void;
    const firstStarted = new Promise<void>((resolve) => (firstRunning = resolve));
    const order: string[] = [];
    const first = runWrite(h.deps, async (tx, changes, now) => {
      order.push('a');
      firstRunning();
      await firstMayFinish;
      const session = await requireSession(tx, actor, a);
      return commitMetadataVersion(tx, changes, { session, outcome: applyMetadataPatch(session.metadata, { title: 'a' }), by: 'runner', now });
    });
    await firstStarted;

    // arrive while the first batch is committing: they must wait for it, and then go together
    const probeOf = (sid: string, title: string) =>
      runWrite(h.deps, async (tx, changes, now) => {
        order.push(title);
        const seen = { a: await committedVersion(a), b: await committedVersion(b) };
        const session = await requireSession(tx, actor, sid);
        await commitMetadataVersion(tx, changes, { session, outcome: applyMetadataPatch(session.metadata, { title }), by: 'runner', now });
        return seen;
      });
    const second = probeOf(b, 'b');
    const third = probeOf(c, 'c');
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    // still queued behind the open batch: not run yet
    expect(order).toEqual(['a']);
    releaseFirst();

    expect(await first).toBe(2);
    const [seenBySecond, seenByThird] = await Promise.all([second, third]);
    expect(order).toEqual(['a', 'b', 'c']);
    // the first batch was committed before the second began; b and c share the second batch (c ran before b committed)
    expect(seenBySecond).toEqual({ a: 2, b: 1 });
    expect(seenByThird).toEqual({ a: 2, b: 1 });
    // published in arrival order with consecutive seqs
    expect(h.published.map((e) => e.sid)).toEqual([a, b, c]);
    const seqs = h.published.map((e) => e.event.seq);
    expect(seqs).toEqual([seqs[0], seqs[0]! + 1, seqs[0]! + 2]);
  });

  it('rolls back only the write that fails; the others in its batch commit, answer and publish', async () => {
    harness = openServices();
    const h = harness;
    const [a, b, c] = [await newSession(h), await newSession(h), await newSession(h)];
    const seqBefore = Math.max(0, ...h.published.map((e) => e.event.seq));
    h.published.length = 0;

    const first = updateMetadata(h.deps, actor, { sid: a, expectedVersion: 1, patch: { title: 'a' } });
    // a unit of work that stores a version and then fails: its savepoint must undo all of it
    const failing = runWrite(h.deps, async (tx, changes, now) => {
      const session = await requireSession(tx, actor, b);
      await commitMetadataVersion(tx, changes, { session, outcome: applyMetadataPatch(session.metadata, { title: 'b' }), by: 'runner', now });
      throw hubError.conflict('fails after writing');
    });
    const unknown = updateMetadata(h.deps, actor, { sid: 'no-such-session', expectedVersion: 1, patch: { x: 1 } });
    const last = updateMetadata(h.deps, actor, { sid: c, expectedVersion: 1, patch: { title: 'c' } });

    const settled = await Promise.allSettled([first, failing, unknown, last]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(settled[1]).toMatchObject({ reason: { code: 'conflict' } });
    expect(settled[2]).toMatchObject({ reason: { code: 'not_found' } });

    expect((await requireSession(h.deps.store, actor, a)).metadata).toMatchObject({ title: 'a' });
    const untouched = await requireSession(h.deps.store, actor, b);
    expect(untouched.metadataVersion).toBe(1);
    expect(untouched.metadata).not.toHaveProperty('title');
    expect((await requireSession(h.deps.store, actor, c)).metadataVersion).toBe(2);
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
    const [a, b] = [await newSession(h), await newSession(h)];
    let failures = 0;
    const publish = h.deps.publisher.publish;
    // the delivery layer fails for every publish from now on (say, an adapter error)
    h.deps.publisher.publish = () => {
      failures++;
      throw new Error('delivery failed');
    };
    try {
      const acks = await Promise.all([
        updateMetadata(h.deps, actor, { sid: a, expectedVersion: 1, patch: { title: 'a' } }),
        updateMetadata(h.deps, actor, { sid: b, expectedVersion: 1, patch: { title: 'b' } }),
      ]);
      expect(acks.map((ack) => ack.result === 'success' && ack.version)).toEqual([2, 2]);
      // a unit of work in a later batch answers too
      const started = await startSessionService(h.deps, actor, { tag: 'after', flavor: 'claude', source: 'startup' });
      expect(started.created).toBe(true);
      expect(failures).toBe(3);
    } finally {
      h.deps.publisher.publish = publish;
    }
    expect((await requireSession(h.deps.store, actor, a)).metadataVersion).toBe(2);
    expect((await requireSession(h.deps.store, actor, b)).metadataVersion).toBe(2);
  });
});
