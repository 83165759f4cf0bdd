/**
 * Group commit on PostgreSQL, where batches run without savepoints to save round trips: a write
 * that fails after changing rows must still fail alone — the batch is run again with savepoints —
 * and nothing of it may be committed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import { loadConfig } from '../../hub/config.js';
import { startSession } from '../../hub/lifecycle/session-start.js';
import { createLogger } from '../../hub/log.js';
import { runWrite } from '../../hub/services/changes.js';
import type { HubDeps, OutgoingEvent } from '../../hub/services/deps.js';
import { updateMetadata } from '../../hub/lifecycle/versioned-writes.js';
import { listHistory } from '../../hub/store/history.js';
import { PgStore } from '../../hub/store/postgres/pg-store.js';
import { getSession, touchActivity } from '../../hub/store/sessions.js';
import { recordAppliedRequest } from '../../hub/store/applied-requests.js';
import { namespaceSeqState, readEventsSince } from '../../hub/store/events.js';
import { startPgRelay, type PgRelay } from '../helpers/pg-relay.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { runnerActor } from '../helpers/services.js';

let database: TestDatabase | undefined;
let store: PgStore | undefined;
let relay: PgRelay | undefined;
afterEach(async () => {
  await store?.close();
  await relay?.close();
  await database?.drop();
  store = undefined;
  database = undefined;
  relay = undefined;
});

/**
 * A relay to the test PostgreSQL that counts the statements the hub sends (the extended protocol's
 * Bind messages, one per statement run), as the server receives them.
 */
async function startStatementCounter(databaseUrl: string) {
  let binds = 0;
  const counter = await startPgRelay(databaseUrl, (client, upstream) => {
    let pending = Buffer.alloc(0);
    let started = false; // the startup message has no type byte
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const header = started ? 5 : 4;
        if (pending.length < header) break;
        const length = started ? pending.readInt32BE(1) + 1 : pending.readInt32BE(0);
        if (pending.length < length) break;
        if (started && pending[0] === 0x42) binds++; // 'B'
        // an SSL request is followed by another untyped startup message
        if (!started && !(length === 8 && pending.readInt32BE(4) === 80877103)) started = true;
        pending = pending.subarray(length);
      }
    });
    client.on('close', () => upstream.end());
  });
  return { ...counter, statements: () => binds };
}

async function pgDeps(databaseUrl?: (url: string) => Promise<string>): Promise<{ deps: HubDeps; published: OutgoingEvent[] }> {
  database = await createTestDatabase();
  store = await PgStore.open(databaseUrl ? await databaseUrl(database.url) : database.url);
  const published: OutgoingEvent[] = [];
  const config = loadConfig({}, { logLevel: 'silent' });
  const deps: HubDeps = {
    store,
    hubId: 'test-hub',
    clock: new ManualClock(1_700_000_000_000),
    config,
    log: createLogger('silent'),
    publisher: { publish: (events) => void published.push(...events) },
  };
  return { deps, published };
}

describe('group commit on PostgreSQL', () => {
  // in the namespace's batch with the two writes (its writes deferred with theirs), and in a batch of its own
  it.each([{ namespace: 'default' }, {}])('a write that fails after changing rows fails alone: the others commit and are published, none of its rows stay (%o)', async (options) => {
    const { deps, published } = await pgDeps();
    const actor = runnerActor();
    const { session } = await startSession(deps, actor, { tag: 't', flavor: 'claude', source: 'startup', metadata: { path: '/p' } });
    published.length = 0;

    // three writes arriving together: one batch
    const before = updateMetadata(deps, actor, { sid: session.sid, expectedVersion: 1, patch: { step: 1 } });
    const failing = runWrite(deps, async (tx, _changes, now) => {
      await touchActivity(tx, { sid: session.sid, now: now + 5000 }); // a change, then a failure
      throw new Error('failed after writing');
    }, options);
    const after = updateMetadata(deps, actor, { sid: session.sid, expectedVersion: 2, patch: { step: 2 } });

    await expect(failing).rejects.toThrow('failed after writing');
    expect(await before).toMatchObject({ result: 'success', version: 2 });
    expect(await after).toMatchObject({ result: 'success', version: 3 });
    const stored = (await getSession(store!, { namespace: 'default', sid: session.sid }))!;
    expect(stored.metadata).toEqual({ path: '/p', step: 2 });
    expect(stored.lastActivityAt).not.toBe(1_700_000_000_000 + 5000);
    expect((await listHistory(store!, session.sid)).map((entry) => entry.version)).toEqual([1, 2, 3]);
    expect(published.map((event) => event.event.seq)).toEqual([2, 3]);
  });
});

describe('a batch\'s rows in one statement per kind (PostgreSQL)', () => {
  it('the statements a batch of metadata writes sends do not grow with its size, and it stores what writes one by one would', async () => {
    let counter: Awaited<ReturnType<typeof startStatementCounter>> | undefined;
    const { deps, published } = await pgDeps(async (url) => {
      counter = await startStatementCounter(url);
      relay = counter;
      return counter.url;
    });
    const actor = runnerActor();
    const sids: string[] = [];
    // titled: an untitled session's write reads its first prompt for the title (a round trip of its own)
    for (let i = 0; i < 40; i++) {
      sids.push((await startSession(deps, actor, { tag: `t${i}`, flavor: 'claude', source: 'startup', metadata: { path: '/p', title: `s${i}` } })).session.sid);
    }

    // one batch: a write to each of `size` sessions from `from`, and a second write to the first one
    const batch = async (from: number, size: number) => {
      published.length = 0;
      const before = counter!.statements();
      const acks = await Promise.all([
        ...sids.slice(from, from + size).map((sid, i) =>
          updateMetadata(deps, actor, { sid, expectedVersion: 1, patch: { n: from + i, note: 'a "quoted" \\ text' }, requestId: `r-${from + i}` }),
        ),
        updateMetadata(deps, actor, { sid: sids[from]!, expectedVersion: 2, patch: { again: true }, requestId: `again-${from}` }),
      ]);
      return { acks, statements: counter!.statements() - before };
    };
    const small = await batch(0, 5);
    const large = await batch(5, 35);

    for (const { acks } of [small, large]) expect(acks.map((ack) => ack.result)).toEqual(acks.map(() => 'success'));
    // one per kind of row (sessions + history, request ids, events with the seq counter), whatever
    // the batch size: BEGIN, the two locks in one statement, three reads, the sessions (twice: the
    // second version of one session goes after the first), request ids, events, COMMIT
    expect(large.statements).toBe(small.statements);
    expect(large.statements).toBe(10);

    // the rows are those of writes run one by one
    const twice = (await getSession(store!, { namespace: 'default', sid: sids[5]! }))!;
    expect(twice.metadataVersion).toBe(3);
    expect(twice.metadata).toEqual({ path: '/p', title: 's5', n: 5, note: 'a "quoted" \\ text', again: true });
    expect((await listHistory(store!, sids[5]!)).map((entry) => entry.version)).toEqual([1, 2, 3]);
    const last = (await getSession(store!, { namespace: 'default', sid: sids[39]! }))!;
    expect(last.metadataVersion).toBe(2);
    expect(last.metadata).toEqual({ path: '/p', title: 's39', n: 39, note: 'a "quoted" \\ text' });
    expect((await listHistory(store!, sids[39]!)).map((entry) => entry.version)).toEqual([1, 2]);
    // events: gapless seqs in the batch's order, each carrying its version's document
    expect(published).toHaveLength(36);
    const events = await readEventsSince(store!, { namespace: 'default', since: published[0]!.event.seq - 1 });
    expect(events).toEqual(published.map((event) => event.event));
    // the namespace's counter, raised by the events' statement, is the last seq
    expect((await namespaceSeqState(store!, 'default')).lastSeq).toBe(published.at(-1)!.event.seq);
    // a retry of a write of the batch answers what it produced, writing nothing
    const retry = await updateMetadata(deps, actor, { sid: sids[39]!, expectedVersion: 1, patch: { n: 39, note: 'x' }, requestId: 'r-39' });
    expect(retry).toMatchObject({ result: 'success', version: 2 });
    expect((await listHistory(store!, sids[39]!)).map((entry) => entry.version)).toEqual([1, 2]);
  });

  it('a write whose row fails in a statement shared with the batch\'s other writes fails alone; the others commit', async () => {
    const { deps, published } = await pgDeps();
    const actor = runnerActor();
    const sids: string[] = [];
    for (let i = 0; i < 3; i++) {
      sids.push((await startSession(deps, actor, { tag: `t${i}`, flavor: 'claude', source: 'startup', metadata: { path: '/p' } })).session.sid);
    }
    const taken = { sid: sids[1]!, field: 'metadata' as const, requestId: 'taken', version: 1, value: {}, at: 1 };
    await store!.transaction(async (tx) => recordAppliedRequest(tx, taken));
    published.length = 0;

    // its request-id row goes in the same INSERT as the two metadata writes' rows, and violates the key
    const writes = [
      updateMetadata(deps, actor, { sid: sids[0]!, expectedVersion: 1, patch: { a: 1 }, requestId: 'ok-0' }),
      runWrite(deps, async (tx) => recordAppliedRequest(tx, taken), { namespace: 'default' }),
      updateMetadata(deps, actor, { sid: sids[2]!, expectedVersion: 1, patch: { c: 1 }, requestId: 'ok-2' }),
    ];
    const [a, failing, c] = await Promise.allSettled(writes);
    expect(failing).toMatchObject({ status: 'rejected', reason: { message: expect.stringMatching(/duplicate key/) } });
    expect(a).toMatchObject({ status: 'fulfilled', value: { result: 'success', version: 2 } });
    expect(c).toMatchObject({ status: 'fulfilled', value: { result: 'success', version: 2 } });
    expect((await getSession(store!, { namespace: 'default', sid: sids[0]! }))!.metadata).toEqual({ path: '/p', a: 1 });
    expect((await getSession(store!, { namespace: 'default', sid: sids[2]! }))!.metadata).toEqual({ path: '/p', c: 1 });
    expect(published).toHaveLength(2);
    // the run that failed raised nothing: the counter is the last committed seq, and the next write follows it
    const lastSeq = published.at(-1)!.event.seq;
    expect((await namespaceSeqState(store!, 'default')).lastSeq).toBe(lastSeq);
    published.length = 0;
    await updateMetadata(deps, actor, { sid: sids[1]!, expectedVersion: 1, patch: { b: 1 } });
    expect(published.map((event) => event.event.seq)).toEqual([lastSeq + 1]);
  });
});

describe('text PostgreSQL cannot hold', () => {
  it('a session-start whose tag holds U+0000 succeeds, and the same tag finds the same session again', async () => {
    const { deps } = await pgDeps();
    const actor = runnerActor();
    const first = await startSession(deps, actor, { tag: 'tag\u0000one', flavor: 'claude', source: 'startup', metadata: { path: '/p\u0000' } });
    const again = await startSession(deps, actor, { tag: 'tag\u0000one', flavor: 'claude', source: 'resume', metadata: { path: '/p\u0000' } });
    expect(again.session.sid).toBe(first.session.sid);
    // JSON documents keep it exactly (JSON escapes it)
    expect((await getSession(store!, { namespace: 'default', sid: first.session.sid }))!.metadata).toEqual({ path: '/p\u0000' });
  });
});
