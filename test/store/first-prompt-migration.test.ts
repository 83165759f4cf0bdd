/**
 * Migration 019 (issue 31): a session's first and latest prompts move onto its row, where its view
 * reads them; a database written before it gets each session's earliest and latest prompts copied in.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PG_MIGRATIONS } from '../../hub/store/postgres/migrations/index.js';
import { PgStore } from '../../hub/store/postgres/pg-store.js';
import { getSession, insertSession } from '../../hub/store/sessions.js';
import { insertTurn } from '../../hub/store/turns.js';
import type { Store } from '../../hub/store/sql.js';
import { MIGRATIONS } from '../../hub/store/sqlite/migrations/index.js';
import { SqliteStore } from '../../hub/store/sqlite/sqlite-store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';

/** The migrations before 019 (the first and latest prompts): a later migration may follow it. */
const BEFORE_019 = 18;

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** Two sessions written before migration 019 (by the store functions that write no new column): one with two prompts and a recovery turn, one with none. */
async function writeBefore(store: Store): Promise<{ prompted: string; silent: string }> {
  const at = 1_700_000_000_000;
  await store.transaction(async (tx) => {
    for (const sid of ['s-prompted', 's-silent']) await insertSession(tx, { sid, namespace: 'default', tag: sid, flavor: 'claude', parentSid: null, metadata: { path: '/p' }, now: at });
    const turn = { sid: 's-prompted', promptTruncated: false, promptId: null, status: 'completed' as const, closedAt: at + 5000 };
    // inserted out of order: the earliest opened is the first prompt
    await insertTurn(tx, { ...turn, turnId: 't2', kind: 'prompt', prompt: 'the second', openedAt: at + 2000 });
    await insertTurn(tx, { ...turn, turnId: 't0', kind: 'recovery', prompt: null, openedAt: at });
    await insertTurn(tx, { ...turn, turnId: 't1', kind: 'prompt', prompt: 'the first', openedAt: at + 1000 });
  });
  return { prompted: 's-prompted', silent: 's-silent' };
}

async function expectBackfilled(store: Store, sids: { prompted: string; silent: string }): Promise<void> {
  const prompted = (await getSession(store, { namespace: 'default', sid: sids.prompted }))!;
  expect(prompted).toMatchObject({ firstPrompt: 'the first', firstPromptAt: 1_700_000_001_000, lastPrompt: 'the second', lastPromptAt: 1_700_000_002_000 });
  expect(await getSession(store, { namespace: 'default', sid: sids.silent })).toMatchObject({ firstPrompt: null, firstPromptAt: null, lastPrompt: null, lastPromptAt: null });
}

describe('migration 019: the first and latest prompts on the session row', () => {
  it('SQLite: copies each session\'s earliest and latest prompts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'session-hub-019-'));
    const file = join(dir, 'hub.sqlite');
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
    const before = SqliteStore.open(file, { migrations: MIGRATIONS.slice(0, BEFORE_019) });
    const sids = await writeBefore(before);
    await before.close();
    const after = SqliteStore.open(file);
    cleanup = async () => {
      await after.close();
      rmSync(dir, { recursive: true, force: true });
    };
    await expectBackfilled(after, sids);
  });

  it('PostgreSQL: copies each session\'s earliest and latest prompts', async () => {
    const database: TestDatabase = await createTestDatabase();
    cleanup = () => database.drop();
    const before = await PgStore.open(database.url, { migrations: PG_MIGRATIONS.slice(0, BEFORE_019) });
    const sids = await writeBefore(before);
    await before.close();
    const after = await PgStore.open(database.url);
    cleanup = async () => {
      await after.close();
      await database.drop();
    };
    await expectBackfilled(after, sids);
  });
});
