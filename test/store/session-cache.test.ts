/**
 * The parsed-session cache of SQLite transactions (hub/store/sessions.ts, `rowCache` in sql.ts): a
 * write never answers from a session that is no longer what the database holds — after another
 * connection's commit (the offline CLI), a rolled-back savepoint or transaction, or a write made
 * outside any transaction.
 */
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startSession } from '../../hub/lifecycle/session-start.js';
import { runWrite } from '../../hub/services/changes.js';
import { updateMetadata as updateMetadataService } from '../../hub/lifecycle/versioned-writes.js';
import { getSession, updateMetadata, updatePresence } from '../../hub/store/sessions.js';
import { openServices, runnerActor, type ServiceHarness } from '../helpers/services.js';

let harness: ServiceHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const actor = runnerActor();

/** A session that has been read and written through the cache once (so it is cached). */
async function cachedSession(h: ServiceHarness): Promise<string> {
  const { session } = await startSession(h.deps, actor, { tag: `t-${Math.random()}`, flavor: 'claude', source: 'startup', metadata: { path: '/p' } });
  const ack = await updateMetadataService(h.deps, actor, { sid: session.sid, expectedVersion: 1, patch: { title: 'one' } });
  expect(ack).toMatchObject({ result: 'success', version: 2 });
  return session.sid;
}

const read = (h: ServiceHarness, sid: string) => h.deps.store.transaction((tx) => getSession(tx, { namespace: 'default', sid }));

describe('parsed sessions kept between SQLite transactions', () => {
  it('a version committed by another connection (the offline CLI) is what the next write compares against', async () => {
    const h = (harness = openServices());
    const sid = await cachedSession(h);
    const cli = new Database(h.store.db.name);
    cli.prepare(`UPDATE sessions SET metadata = ?, metadata_version = 3 WHERE sid = ?`).run(JSON.stringify({ path: '/p', title: 'from the cli' }), sid);
    cli.close();

    const stale = await updateMetadataService(h.deps, actor, { sid, expectedVersion: 2, patch: { title: 'two' } });
    expect(stale).toEqual({ result: 'version-mismatch', version: 3, metadata: { path: '/p', title: 'from the cli' } });
    const next = await updateMetadataService(h.deps, actor, { sid, expectedVersion: 3, patch: { extra: 1 } });
    expect(next).toEqual({ result: 'success', version: 4, metadata: { path: '/p', title: 'from the cli', extra: 1 } });
  });

  it('a write rolled back with its savepoint (group commit) leaves no trace in the next read', async () => {
    const h = (harness = openServices());
    const sid = await cachedSession(h);
    const failing = runWrite(h.deps, async (tx) => {
      const session = (await getSession(tx, { namespace: 'default', sid }))!;
      await updateMetadata(tx, { sid, metadata: { path: '/p', title: 'rolled back' }, version: 3, now: 1, countsAsActivity: true, previousActivityAt: session.lastActivityAt });
      throw new Error('this write fails after writing');
    });
    const sibling = updateMetadataService(h.deps, actor, { sid, expectedVersion: 2, patch: { title: 'kept' } });
    await expect(failing).rejects.toThrow('this write fails after writing');
    expect(await sibling).toMatchObject({ result: 'success', version: 3, metadata: { path: '/p', title: 'kept' } });
    expect(await read(h, sid)).toMatchObject({ metadataVersion: 3, metadata: { path: '/p', title: 'kept' } });
  });

  it('a rolled-back transaction leaves no trace in the next read', async () => {
    const h = (harness = openServices());
    const sid = await cachedSession(h);
    await expect(
      h.deps.store.transaction(async (tx) => {
        await updateMetadata(tx, { sid, metadata: { title: 'rolled back' }, version: 3, now: 1, countsAsActivity: true, previousActivityAt: 0 });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await read(h, sid)).toMatchObject({ metadataVersion: 2, metadata: { path: '/p', title: 'one' } });
  });

  it('a write outside any transaction is seen by the next one', async () => {
    const h = (harness = openServices());
    const sid = await cachedSession(h);
    await updatePresence(h.deps.store, { sid, active: true, activeAt: 5, aliveAt: 6, thinking: true });
    expect((await read(h, sid))!.presence).toEqual({ active: true, activeAt: 5, aliveAt: 6, thinking: true });
  });

  it('callers get their own copy: changing a session read in one transaction does not change the next read', async () => {
    const h = (harness = openServices());
    const sid = await cachedSession(h);
    const first = (await read(h, sid))!;
    first.metadataVersion = 99;
    first.lifecycle.state = 'archived';
    expect(await read(h, sid)).toMatchObject({ metadataVersion: 2, lifecycle: { state: 'running' } });
  });
});
