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
import { updateMetadata } from '../../hub/services/versioned-writes.js';
import { listHistory } from '../../hub/store/history.js';
import { PgStore } from '../../hub/store/postgres/pg-store.js';
import { getSession, touchActivity } from '../../hub/store/sessions.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { runnerActor } from '../helpers/services.js';

let database: TestDatabase | undefined;
let store: PgStore | undefined;
afterEach(async () => {
  await store?.close();
  await database?.drop();
  store = undefined;
  database = undefined;
});

async function pgDeps(): Promise<{ deps: HubDeps; published: OutgoingEvent[] }> {
  database = await createTestDatabase();
  store = await PgStore.open(database.url);
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
