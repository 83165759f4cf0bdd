/**
 * Which failures mean "the store cannot write now" (hub/store/unavailable.ts), from real driver
 * errors: both engines reject such a transaction with StoreUnavailable (answered `unavailable`, 503,
 * which clients retry); every other error reaches the caller unchanged.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../hub/log.js';
import { PgStore } from '../../hub/store/postgres/pg-store.js';
import { SqliteStore } from '../../hub/store/sqlite/sqlite-store.js';
import { StoreUnavailable, unavailableAnswer, unavailableReason } from '../../hub/store/unavailable.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { freePort } from '../setup/free-port.js';

describe('SQLite', () => {
  let dir: string;
  let store: SqliteStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'session-hub-unavailable-'));
    store = SqliteStore.open(join(dir, 'hub.db'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a full database (SQLITE_FULL: max_page_count reached, as on a full disk) is StoreUnavailable', async () => {
    const pages = store.db.pragma('page_count', { simple: true }) as number;
    store.db.pragma(`max_page_count = ${pages}`);
    const error = await store
      .transaction((tx) => tx.run(`INSERT INTO namespaces (name, last_seq) VALUES (@name, 0)`, { name: 'x'.repeat(100_000) }))
      .then(() => undefined, (failure: unknown) => failure);
    expect(error).toBeInstanceOf(StoreUnavailable);
    expect((error as StoreUnavailable).reason).toMatch(/full/);
    expect(((error as Error).cause as { code: string }).code).toBe('SQLITE_FULL');
    expect(unavailableAnswer(error)).toMatchObject({ code: 'unavailable', status: 503 });
  });

  it('a constraint violation is the caller\'s own error, unchanged', async () => {
    await store.transaction((tx) => tx.run(`INSERT INTO namespaces (name, last_seq) VALUES ('a', 0)`));
    const error = await store
      .transaction((tx) => tx.run(`INSERT INTO namespaces (name, last_seq) VALUES ('a', 0)`))
      .then(() => undefined, (failure: unknown) => failure);
    expect(error).not.toBeInstanceOf(StoreUnavailable);
    expect((error as { code: string }).code).toMatch(/^SQLITE_CONSTRAINT/);
    expect(unavailableAnswer(error)).toBeUndefined();
  });
});

describe('PostgreSQL', () => {
  let database: TestDatabase;
  let store: PgStore;
  beforeEach(async () => {
    database = await createTestDatabase();
    store = await PgStore.open(database.url, { log: createLogger('silent') });
  });
  afterEach(async () => {
    await store.close();
    await database.drop();
  });

  it('a connection an admin terminates mid-transaction (57P01 admin_shutdown) is StoreUnavailable', async () => {
    const error = await store
      .transaction(async (tx) => {
        const { pid } = (await tx.get<{ pid: number }>(`SELECT pg_backend_pid() AS pid`))!;
        const admin = new pg.Client({ connectionString: database.url });
        await admin.connect();
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        await admin.end();
        await tx.get(`SELECT 1 AS one`);
      })
      .then(() => undefined, (failure: unknown) => failure);
    expect(error).toBeInstanceOf(StoreUnavailable);
    expect(unavailableAnswer(error)?.code).toBe('unavailable');
  });

  it('a unique violation (23505) is the caller\'s own error, unchanged', async () => {
    await store.run(`INSERT INTO namespaces (name, last_seq) VALUES ('a', 0)`);
    const error = await store
      .transaction((tx) => tx.run(`INSERT INTO namespaces (name, last_seq) VALUES ('a', 0)`))
      .then(() => undefined, (failure: unknown) => failure);
    expect(error).not.toBeInstanceOf(StoreUnavailable);
    expect((error as { code: string }).code).toBe('23505');
  });

  it('a refused connection (ECONNREFUSED, the server down) reads as unavailable', async () => {
    const client = new pg.Client({ host: '127.0.0.1', port: await freePort(), user: 'x', database: 'x' });
    const error = await client.connect().then(() => undefined, (failure: unknown) => failure);
    expect(unavailableReason(error)).toBe('the database connection failed');
  });
});
