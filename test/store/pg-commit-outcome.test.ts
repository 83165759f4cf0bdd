import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import { loadConfig } from '../../hub/config.js';
import { startSession } from '../../hub/lifecycle/session-start.js';
import { createLogger } from '../../hub/log.js';
import type { HubDeps } from '../../hub/services/deps.js';
import { updateMetadata } from '../../hub/lifecycle/versioned-writes.js';
import { listHistory } from '../../hub/store/history.js';
import { PgStore } from '../../hub/store/postgres/pg-store.js';
import { getSession } from '../../hub/store/sessions.js';
import { startCommitCutter } from '../helpers/pg-relay.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { runnerActor } from '../helpers/services.js';

let database: TestDatabase | undefined;
let store: PgStore | undefined;
let cutter: Awaited<ReturnType<typeof startCommitCutter>> | undefined;
afterEach(async () => {
  await store?.close().catch(() => undefined);
  await cutter?.close();
  await database?.drop();
  store = database = cutter = undefined;
});

describe('a COMMIT whose answer never comes (issue 26.5)', () => {
  it('is answered "may or may not be stored", not "nothing was written"; the retry with the same requestId is applied once', async () => {
    database = await createTestDatabase();
    cutter = await startCommitCutter(database.url);
    store = await PgStore.open(cutter.url);
    const deps: HubDeps = {
      store,
      hubId: 'test-hub',
      clock: new ManualClock(1_700_000_000_000),
      config: loadConfig({}, { logLevel: 'silent' }),
      log: createLogger('silent'),
      publisher: { publish: () => undefined },
    };
    const actor = runnerActor();
    const { session } = await startSession(deps, actor, { tag: 't', flavor: 'claude', source: 'startup', metadata: { path: '/p' } });
    const write = { sid: session.sid, expectedVersion: 1, patch: { step: 1 }, requestId: 'req-1' };

    cutter.arm();
    const failed = await updateMetadata(deps, actor, write).then(
      () => undefined,
      (error: unknown) => error as { code?: string; message: string },
    );
    expect(cutter.cuts()).toBe(1);
    expect(failed?.code).toBe('unavailable'); // retryable (main's store-unavailable code)
    expect(failed?.message).toContain('may or may not be stored');
    expect(failed?.message).toContain('same requestId');
    expect(failed?.message).not.toContain('nothing was written');

    // it did commit (the server ran the COMMIT it was sent)
    await expect.poll(async () => (await getSession(store!, { namespace: 'default', sid: session.sid }))?.metadataVersion, { timeout: 5000 }).toBe(2);
    // the retry answers what the write produced, and writes nothing again
    expect(await updateMetadata(deps, actor, write)).toMatchObject({ result: 'success', version: 2, metadata: { path: '/p', step: 1 } });
    expect((await listHistory(store, session.sid)).map((entry) => entry.version)).toEqual([1, 2]);
    // a retry without the requestId cannot apply twice either: the version moved on
    expect(await updateMetadata(deps, actor, { sid: session.sid, expectedVersion: 1, patch: { step: 1 } })).toMatchObject({ result: 'version-mismatch', version: 2 });
  });
});
