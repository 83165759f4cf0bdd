/**
 * Group commit on PostgreSQL, where batches run without savepoints to save round trips: a write
 * that fails after changing rows must still fail alone — the batch is run again with savepoints —
 * and nothing of it may be committed.
 */
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import { loadConfig } from '../../hub/config.js';
import { startSession } from '../../hub/lifecycle/session-start.js';
import { createLogger } from '../../hub/log.js';
import { MAX_BATCHES_IN_FLIGHT, runWrite } from '../../hub/services/changes.js';
import type { HubDeps, OutgoingEvent } from '../../hub/services/deps.js';
import { updateMetadata } from '../../hub/lifecycle/versioned-writes.js';
import { listHistory } from '../../hub/store/history.js';
import { PgStore } from '../../hub/store/postgres/pg-store.js';
import { getSession, touchActivity } from '../../hub/store/sessions.js';
import { recordAppliedRequest } from '../../hub/store/applied-requests.js';
import { namespaceSeqState, readEventsSince } from '../../hub/store/events.js';
import { startCommitCutter, startPgRelay, type PgRelay } from '../helpers/pg-relay.js';
import { startDelayProxy, throughProxy, type DelayProxy } from '../../bench/delay-proxy.js';
import { startStatementCounter } from '../helpers/pg-statement-counter.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { runnerActor } from '../helpers/services.js';

let database: TestDatabase | undefined;
let store: PgStore | undefined;
let relay: PgRelay | undefined;
let proxy: DelayProxy | undefined;
afterEach(async () => {
  await store?.close();
  await relay?.close();
  await proxy?.close();
  proxy = undefined;
  await database?.drop();
  store = undefined;
  database = undefined;
  relay = undefined;
});

async function pgDeps(databaseUrl?: (url: string) => Promise<string>, logLines?: string[], options: { carryRows?: boolean } = {}): Promise<{ deps: HubDeps; published: OutgoingEvent[] }> {
  database = await createTestDatabase();
  store = await PgStore.open(databaseUrl ? await databaseUrl(database.url) : database.url, options);
  const published: OutgoingEvent[] = [];
  const config = loadConfig({}, { logLevel: 'silent' });
  const deps: HubDeps = {
    store,
    hubId: 'test-hub',
    clock: new ManualClock(1_700_000_000_000),
    config,
    log: logLines ? createLogger('debug', { write: (line: string) => void logLines.push(line) }) : createLogger('silent'),
    publisher: { publish: (events) => void published.push(...events) },
  };
  return { deps, published };
}

/** `count` sessions, and a request id already recorded for the second: a write recording it again violates the key. */
async function sessionsAndTakenRequest(deps: HubDeps, actor: ReturnType<typeof runnerActor>, count: number) {
  const sids: string[] = [];
  for (let i = 0; i < count; i++) {
    sids.push((await startSession(deps, actor, { tag: `t${i}`, flavor: 'claude', source: 'startup', metadata: { path: '/p' } })).session.sid);
  }
  const taken = { sid: sids[1]!, field: 'metadata' as const, requestId: 'taken', version: 1, value: {}, at: 1 };
  await store!.transaction(async (tx) => recordAppliedRequest(tx, taken));
  return { sids, taken };
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
    // the batch size: BEGIN, the two locks and the writer claim in one statement, the check that the
    // request ids are new (the sessions and the seq counter are held from their start: no read), the
    // sessions (twice: the second version of one session goes after the first), request ids, events, COMMIT
    expect(large.statements).toBe(small.statements);
    expect(large.statements).toBe(8);

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
    const { sids, taken } = await sessionsAndTakenRequest(deps, actor, 3);
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

describe('overlapping batches (PostgreSQL across a network)', () => {
  it('a batch that started while the one before was committing commits after it; when that COMMIT fails it is rolled back and runs again after the retry', async () => {
    const lines: string[] = [];
    const { deps, published } = await pgDeps(async (url) => {
      const target = new URL(url);
      proxy = await startDelayProxy({ host: target.hostname, port: Number(target.port || 5432) });
      return throughProxy(url, proxy);
    }, lines);
    const actor = runnerActor();
    const { sids, taken } = await sessionsAndTakenRequest(deps, actor, 2);
    published.length = 0;
    proxy!.delayMs = 20;

    // batch A: its COMMIT's round trip carries a row that violates a key, so that COMMIT fails
    const a0 = updateMetadata(deps, actor, { sid: sids[0]!, expectedVersion: 1, patch: { a: 1 }, requestId: 'a0' });
    const failing = runWrite(deps, async (tx) => recordAppliedRequest(tx, taken), { namespace: 'default' });
    const a1 = updateMetadata(deps, actor, { sid: sids[1]!, expectedVersion: 1, patch: { a: 1 }, requestId: 'a1' });
    // batch B, queued while A's first round trip travels: it starts once A's COMMIT is sent, and
    // writes the version of session 0 that A's write makes
    await new Promise((resolve) => setTimeout(resolve, 10));
    const b0 = updateMetadata(deps, actor, { sid: sids[0]!, expectedVersion: 2, patch: { b: 1 }, requestId: 'b0' });

    const [settledA0, settledFailing, settledA1, settledB0] = await Promise.allSettled([a0, failing, a1, b0]);
    expect(settledFailing).toMatchObject({ status: 'rejected', reason: { message: expect.stringMatching(/duplicate key/) } });
    expect(settledA0).toMatchObject({ status: 'fulfilled', value: { result: 'success', version: 2 } });
    expect(settledA1).toMatchObject({ status: 'fulfilled', value: { result: 'success', version: 2 } });
    expect(settledB0).toMatchObject({ status: 'fulfilled', value: { result: 'success', version: 3 } });
    // B overlapped A: rolled back when A's COMMIT failed, then committed after A's retry
    expect(lines.some((line) => line.includes('the batch before this one did not commit'))).toBe(true);
    expect((await getSession(store!, { namespace: 'default', sid: sids[0]! }))!.metadata).toEqual({ path: '/p', a: 1, b: 1 });
    expect((await listHistory(store!, sids[0]!)).map((entry) => entry.version)).toEqual([1, 2, 3]);
    // events gapless, in commit order: A's two writes, then B's
    const seqs = published.map((event) => event.event.seq);
    expect(seqs).toEqual([seqs[0], seqs[0]! + 1, seqs[0]! + 2]);
    expect(published.map((event) => (event.event.body as { metadata?: { version: number } }).metadata?.version)).toEqual([2, 2, 3]);
    expect(published.at(-1)!.sid).toBe(sids[0]);

    // and when A commits, B (started during A's COMMIT) commits right after it, seeing A's rows
    published.length = 0;
    lines.length = 0;
    const c1 = updateMetadata(deps, actor, { sid: sids[1]!, expectedVersion: 2, patch: { c: 1 } });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const d1 = updateMetadata(deps, actor, { sid: sids[1]!, expectedVersion: 3, patch: { d: 1 } });
    expect(await c1).toMatchObject({ result: 'success', version: 3 });
    expect(await d1).toMatchObject({ result: 'success', version: 4 });
    expect(lines.some((line) => line.includes('did not commit'))).toBe(false);
  });

  it.each([
    { carryRows: false, how: 'runs again after it' },
    { carryRows: true, how: 'commits only because it did (its claim names that one\'s)' },
  ])('a batch that started while the one before sent a COMMIT whose answer never came $how: that write is answered "may or may not be stored" and is stored once, this one commits once, after it, the seq stays gapless', async ({ carryRows }) => {
    const lines: string[] = [];
    let cutter: Awaited<ReturnType<typeof startCommitCutter>> | undefined;
    const { deps, published } = await pgDeps(async (url) => {
      // batch A's bytes held 50 ms each: batch B queues while A's first round trip travels
      cutter = await startCommitCutter(url, { holdMs: 50 });
      relay = cutter;
      return cutter.url;
    }, lines, { carryRows });
    const actor = runnerActor();
    const { sids } = await sessionsAndTakenRequest(deps, actor, 2);
    const { lastSeq } = await namespaceSeqState(store!, 'default');
    published.length = 0;

    const begun = cutter!.arm();
    const a = updateMetadata(deps, actor, { sid: sids[0]!, expectedVersion: 1, patch: { a: 1 }, requestId: 'a' });
    await begun;
    const b = updateMetadata(deps, actor, { sid: sids[1]!, expectedVersion: 1, patch: { b: 1 }, requestId: 'b' });
    const [settledA, settledB] = await Promise.allSettled([a, b]);

    expect(cutter!.cuts()).toBe(1);
    expect(settledA).toMatchObject({ status: 'rejected', reason: { code: 'unavailable', message: expect.stringContaining('may or may not be stored') } });
    expect(settledB).toMatchObject({ status: 'fulfilled', value: { result: 'success', version: 2 } });
    // B had started during A's COMMIT: reading afresh, it waited for A's outcome, did not commit on an
    // unknown one, and ran again; on carried rows it sent its COMMIT at once, with a claim naming A's
    expect(lines.some((line) => line.includes('the batch before this one did not commit'))).toBe(!carryRows);

    // A did commit (the server ran its COMMIT), B once, after it: both in the log, gapless, in that order
    await expect.poll(async () => (await getSession(store!, { namespace: 'default', sid: sids[0]! }))?.metadataVersion, { timeout: 5000 }).toBe(2);
    expect((await listHistory(store!, sids[1]!)).map((entry) => entry.version)).toEqual([1, 2]);
    const events = await readEventsSince(store!, { namespace: 'default', since: lastSeq });
    expect(events.map((event) => event.seq)).toEqual([lastSeq + 1, lastSeq + 2]);
    expect(published.map((event) => event.event.seq)).toEqual([lastSeq + 2]);
    expect(published[0]!.sid).toBe(sids[1]);
    // A's retry with its requestId answers what it produced and writes nothing again
    expect(await updateMetadata(deps, actor, { sid: sids[0]!, expectedVersion: 1, patch: { a: 1 }, requestId: 'a' })).toMatchObject({ result: 'success', version: 2 });
    expect((await listHistory(store!, sids[0]!)).map((entry) => entry.version)).toEqual([1, 2]);
  });

  /**
   * A relay holding the server's answers 20 ms that counts, per connection, the COMMITs sent and
   * the ones answered (COMMIT or ROLLBACK): the most a connection had on their way at once.
   */
  async function commitsInFlight(url: string) {
    const sent = new Map<Socket, number>();
    const answered = new Map<Socket, number>();
    let most = 0;
    const count = (chunk: Buffer, pattern: string) => chunk.toString('latin1').split(pattern).length - 1;
    relay = await startPgRelay(url, (client, upstream) => {
      client.on('data', (chunk: Buffer) => {
        // the COMMIT's Bind: the unnamed portal, then the statement's name
        const commits = count(chunk, '\0hub_commit\0');
        if (commits > 0) sent.set(client, (sent.get(client) ?? 0) + commits);
        most = Math.max(most, (sent.get(client) ?? 0) - (answered.get(client) ?? 0));
        upstream.write(chunk);
      });
      client.on('close', () => upstream.end());
    }, {
      answerDelayMs: 20,
      onAnswer: (client, chunk) => answered.set(client, (answered.get(client) ?? 0) + count(chunk, 'COMMIT\0') + count(chunk, 'ROLLBACK\0')),
    });
    return {
      url: relay.url,
      most: () => most,
      connections: () => [...sent.values()].filter((n) => n > 0).length,
      /** From now on (nothing on its way): the migrations' and earlier transactions' answers not counted. */
      reset: () => {
        sent.clear();
        answered.clear();
        most = 0;
      },
    };
  }

  it('on carried rows, batches that start while the ones before travel go out on the namespace\'s one connection, up to four at once, and commit in the order they started', async () => {
    let wire: Awaited<ReturnType<typeof commitsInFlight>> | undefined;
    const { deps, published } = await pgDeps(async (url) => (wire = await commitsInFlight(url)).url);
    const actor = runnerActor();
    const { sids } = await sessionsAndTakenRequest(deps, actor, 2);
    // a write the rows are carried from (its claim answered)
    await updateMetadata(deps, actor, { sid: sids[0]!, expectedVersion: 1, patch: { n: 0 } });
    const { lastSeq } = await namespaceSeqState(store!, 'default');
    published.length = 0;
    wire!.reset();

    // five writes 3 ms apart, each after the last one's batch sent its COMMIT: each version follows the
    // last one's, so one committed out of order would fail its compare-and-set
    const writes: Promise<unknown>[] = [];
    for (let i = 1; i <= 5; i++) {
      writes.push(updateMetadata(deps, actor, { sid: sids[0]!, expectedVersion: i + 1, patch: { n: i } }));
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    const results = await Promise.all(writes);
    expect(results).toMatchObject([2, 3, 4, 5, 6].map((version) => ({ result: 'success', version: version + 1 })));
    expect(wire!.most()).toBeGreaterThanOrEqual(3);
    expect(wire!.most()).toBeLessThanOrEqual(MAX_BATCHES_IN_FLIGHT);
    expect(wire!.connections()).toBe(1);
    const seqs = published.map((event) => event.event.seq);
    expect(seqs).toEqual([1, 2, 3, 4, 5].map((n) => lastSeq + n));
    expect((await listHistory(store!, sids[0]!)).map((entry) => entry.version)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('on carried rows, when one of several batches on their way fails, the ones after it run again after it, in order: each write but the failing one commits once', async () => {
    const lines: string[] = [];
    let wire: Awaited<ReturnType<typeof commitsInFlight>> | undefined;
    const { deps, published } = await pgDeps(async (url) => (wire = await commitsInFlight(url)).url, lines);
    const actor = runnerActor();
    const { sids, taken } = await sessionsAndTakenRequest(deps, actor, 2);
    await updateMetadata(deps, actor, { sid: sids[0]!, expectedVersion: 1, patch: { n: 0 } });
    const { lastSeq } = await namespaceSeqState(store!, 'default');
    published.length = 0;
    wire!.reset();

    const pause = () => new Promise((resolve) => setTimeout(resolve, 3));
    const first = updateMetadata(deps, actor, { sid: sids[0]!, expectedVersion: 2, patch: { n: 1 } });
    await pause();
    // the second batch's COMMIT round trip carries a row that violates a key: that COMMIT fails
    const second = updateMetadata(deps, actor, { sid: sids[0]!, expectedVersion: 3, patch: { n: 2 } });
    const failing = runWrite(deps, async (tx) => recordAppliedRequest(tx, taken), { namespace: 'default' });
    await pause();
    const third = updateMetadata(deps, actor, { sid: sids[0]!, expectedVersion: 4, patch: { n: 3 } });
    await pause();
    const fourth = updateMetadata(deps, actor, { sid: sids[0]!, expectedVersion: 5, patch: { n: 4 } });
    // one more once the failure is heard, while they run again: it waits for them
    await expect.poll(() => lines.some((line) => line.includes('a write failed after changing rows')), { interval: 1 }).toBe(true);
    const fifth = updateMetadata(deps, actor, { sid: sids[0]!, expectedVersion: 6, patch: { n: 5 } });

    const [a, b, bad, c, d, e] = await Promise.allSettled([first, second, failing, third, fourth, fifth]);
    expect(bad).toMatchObject({ status: 'rejected', reason: { message: expect.stringMatching(/duplicate key/) } });
    expect([a, b, c, d, e]).toMatchObject([3, 4, 5, 6, 7].map((version) => ({ status: 'fulfilled', value: { result: 'success', version } })));
    expect(wire!.most()).toBeGreaterThanOrEqual(3);
    // the ones after it were on their way when it failed: they ran again
    expect(lines.some((line) => line.includes('the batch before this one did not commit'))).toBe(true);
    expect((await getSession(store!, { namespace: 'default', sid: sids[0]! }))!.metadata).toEqual({ path: '/p', n: 5 });
    expect((await listHistory(store!, sids[0]!)).map((entry) => entry.version)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // events gapless, in commit order
    expect(published.map((event) => event.event.seq)).toEqual([1, 2, 3, 4, 5].map((n) => lastSeq + n));
    expect(published.map((event) => (event.event.body as { metadata?: { version: number } }).metadata?.version)).toEqual([3, 4, 5, 6, 7]);
  });
});
