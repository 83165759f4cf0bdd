/**
 * The event log on the write path of issue 15, on both engines: an `update-session` event row refers
 * to the metadata version its transaction wrote to history instead of repeating the document, and
 * replay rebuilds the published body byte for byte; rows stored before migration 012 replay as they
 * were. Then SQLite's namespace seq, kept in memory during a transaction and written once before
 * COMMIT: never reused or skipped after a rollback, and right after another connection committed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import { ManualClock } from '../../hub/clock.js';
import { loadConfig } from '../../hub/config.js';
import { startSession } from '../../hub/lifecycle/session-start.js';
import { createLogger } from '../../hub/log.js';
import type { HubDeps, OutgoingEvent } from '../../hub/services/deps.js';
import { updateMetadata, updateState } from '../../hub/lifecycle/versioned-writes.js';
import { appendEvent, namespaceSeqState, readEventsSince } from '../../hub/store/events.js';
import type { Store } from '../../hub/store/sql.js';
import { SqliteStore } from '../../hub/store/sqlite/sqlite-store.js';
import { STORE_ENGINES, storeForEachTest } from '../helpers/store-engines.js';
import { runnerActor } from '../helpers/services.js';

const actor = runnerActor();
const DOCUMENT = { path: '/work/project', host: 'box', summary: { text: 'a summary long enough to notice twice', updatedAt: 1 } };

function depsOn(store: Store, published: OutgoingEvent[]): HubDeps {
  const config = loadConfig({}, { dataDir: tmpdir(), logLevel: 'silent' });
  return { store, hubId: 'test-hub', clock: new ManualClock(1_700_000_000_000), config, log: createLogger('silent'), publisher: { publish: (events) => void published.push(...events) } };
}

const ROW = `SELECT body, metadata_version AS "metadataVersion" FROM events WHERE namespace = 'default' AND seq = @seq`;

describe.each(STORE_ENGINES)('$name event log', (engine) => {
  const store = storeForEachTest(engine);

  it('stores an update-session event without its metadata document and replays the published body byte for byte', async () => {
    const published: OutgoingEvent[] = [];
    const deps = depsOn(store(), published);
    const { session } = await startSession(deps, actor, { tag: 't', flavor: 'claude', source: 'startup', metadata: DOCUMENT });
    await updateMetadata(deps, actor, { sid: session.sid, expectedVersion: 1, patch: { title: 'first', nested: { a: [1, 'two', null] } } });
    await updateState(deps, actor, { sid: session.sid, expectedVersion: 1, agentState: { requests: { r1: { tool: 'Bash' } } } });
    await updateMetadata(deps, actor, { sid: session.sid, expectedVersion: 2, metadata: { ...DOCUMENT, title: 'whole', summary: null } });

    const metadataEvents = published.filter((e) => e.event.body.t === 'update-session' && e.event.body.metadata);
    expect(metadataEvents).toHaveLength(2);
    for (const { event } of metadataEvents) {
      const row = (await store().get<{ body: string; metadataVersion: number | null }>(ROW, { seq: event.seq }))!;
      expect(event.body.t === 'update-session' && row.metadataVersion).toBe(event.body.t === 'update-session' && event.body.metadata!.version);
      expect(row.body).not.toContain('/work/project');
      expect(JSON.parse(row.body).metadata.value).toBeNull();
    }
    const replayed = await readEventsSince(store(), { namespace: 'default', since: 0 });
    expect(replayed.map((e) => JSON.stringify(e))).toEqual(published.map((e) => JSON.stringify(e.event)));
  });

  it('replays an event row stored before migration 012 (whole body, no metadata_version) as it was stored', async () => {
    const body = { t: 'update-session', sid: 'old-sid', metadata: { version: 7, value: { path: '/old' } }, agentState: null, lifecycle: null, presence: null };
    await store().run(`INSERT INTO namespaces (name, last_seq) VALUES ('default', 3)`);
    await store().run(`INSERT INTO events (namespace, seq, id, sid, created_at, body) VALUES ('default', 3, 'old-id', 'old-sid', 5, @body)`, { body: JSON.stringify(body) });
    const replayed = await readEventsSince(store(), { namespace: 'default', since: 0 });
    expect(replayed).toEqual([{ id: 'old-id', seq: 3, createdAt: 5, body }]);
    // and the next event follows it
    const next = await store().transaction((tx) => appendEvent(tx, { namespace: 'default', sid: 'old-sid', body: { ...body, metadata: null } as never, now: 6 }));
    expect(next.seq).toBe(4);
  });

  it('names the event and the session when an event refers to a history row that is not there', async () => {
    await store().run(`INSERT INTO namespaces (name, last_seq) VALUES ('default', 1)`);
    const body = { t: 'update-session', sid: 'lost', metadata: { version: 2, value: null }, agentState: null, lifecycle: null, presence: null };
    await store().run(`INSERT INTO events (namespace, seq, id, sid, created_at, body, metadata_version) VALUES ('default', 1, 'x', 'lost', 5, @body, 2)`, { body: JSON.stringify(body) });
    await expect(readEventsSince(store(), { namespace: 'default', since: 0 })).rejects.toThrow('event 1 refers to metadata version 2 of session lost, which has no history row');
  });
});

describe('SQLite namespace seq kept in memory', () => {
  let dir: string | undefined;
  const stores: SqliteStore[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const open = () => {
    dir ??= mkdtempSync(join(tmpdir(), 'session-hub-seq-'));
    const s = SqliteStore.open(join(dir, 'hub.db'));
    stores.push(s);
    return s;
  };
  const body = (sid: string) => ({ t: 'update-session', sid, metadata: null, agentState: null, lifecycle: null, presence: null, attention: null, title: sid, activity: 'idle', lastPrompt: null }) as const;
  const append = (s: SqliteStore, sid: string) => s.transaction((tx) => appendEvent(tx, { namespace: 'default', sid, body: body(sid), now: 1 }));
  const storedSeq = (s: SqliteStore) => s.db.prepare(`SELECT last_seq FROM namespaces WHERE name = 'default'`).pluck().get();

  it('writes the counter with the events of each transaction, and a rolled-back transaction neither reuses nor skips a seq', async () => {
    const s = open();
    const seqs: number[] = [];
    await s.transaction(async (tx) => {
      for (let i = 0; i < 3; i++) seqs.push((await appendEvent(tx, { namespace: 'default', sid: 'a', body: body('a'), now: 1 })).seq);
      // inside the transaction the counter is ahead of the row, and the seq state says so
      expect((await namespaceSeqState(tx, 'default')).lastSeq).toBe(3);
    });
    expect(storedSeq(s)).toBe(3);
    await expect(
      s.transaction(async (tx) => {
        await appendEvent(tx, { namespace: 'default', sid: 'b', body: body('b'), now: 1 });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(storedSeq(s)).toBe(3);
    seqs.push((await append(s, 'c')).seq);
    expect(seqs).toEqual([1, 2, 3, 4]);
    expect(storedSeq(s)).toBe(4);
    const replayed: UpdateEvent[] = await readEventsSince(s, { namespace: 'default', since: 0 });
    expect(replayed.map((e) => [e.seq, e.body.sid])).toEqual([[1, 'a'], [2, 'a'], [3, 'a'], [4, 'c']]);
  });

  it('follows events another connection committed (the offline CLI) instead of reusing their seqs', async () => {
    const hub = open();
    expect((await append(hub, 'a')).seq).toBe(1);
    const cli = open();
    expect((await append(cli, 'b')).seq).toBe(2);
    expect((await append(hub, 'c')).seq).toBe(3);
    expect(storedSeq(hub)).toBe(3);
  });

  it('reopened, continues from the stored counter even when the newest events were pruned', async () => {
    const first = open();
    for (let i = 0; i < 5; i++) await append(first, 'a');
    await first.run(`DELETE FROM events WHERE seq > 2`);
    await first.close();
    stores.splice(stores.indexOf(first), 1);
    expect((await append(open(), 'b')).seq).toBe(6);
  });
});
