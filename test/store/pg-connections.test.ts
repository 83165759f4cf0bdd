/**
 * PostgreSQL connections dropping under the hub (server restart, network, an admin's
 * pg_terminate_backend): logged, never an unhandled 'error' that kills the process; the transaction
 * in flight fails and rolls back; the store goes on with fresh connections.
 */
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createLogger } from '../../hub/log.js';
import { PgStore } from '../../hub/store/postgres/pg-store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { waitFor } from '../helpers/clients.js';
import { freePort } from '../setup/free-port.js';

let database: TestDatabase;
let store: PgStore;
let logged: { level: number; msg: string }[];

beforeEach(async () => {
  database = await createTestDatabase();
  logged = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged.push(JSON.parse(chunk.toString()) as { level: number; msg: string });
      done();
    },
  });
  store = await PgStore.open(database.url, { log: createLogger('warn', sink) });
  await store.run(`INSERT INTO namespaces (name, last_seq) VALUES ('default', 1)`);
});

afterEach(async () => {
  await store.close();
  await database.drop();
});

/** Terminates the hub's connections to the test database, as a server restart would. */
async function terminate(pid?: number): Promise<number> {
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  try {
    const result = await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = current_database() AND application_name = 'session-hub' AND ($1::int IS NULL OR pid = $1::int)`,
      [pid ?? null],
    );
    return result.rowCount ?? 0;
  } finally {
    await admin.end();
  }
}

it('a connection dropped inside a transaction: logged, the transaction fails and rolls back, the next one works', async () => {
  await expect(
    store.transaction(async (tx) => {
      await tx.run(`UPDATE namespaces SET last_seq = 99 WHERE name = 'default'`);
      const { pid } = (await tx.get<{ pid: number }>(`SELECT pg_backend_pid() AS pid`))!;
      expect(await terminate(pid)).toBe(1);
      await waitFor(() => logged.some((line) => line.msg.includes('connection failed while in use')));
      await tx.get(`SELECT 1 AS one`);
    }),
  ).rejects.toThrow();
  expect(logged.some((line) => line.msg.includes('rollback failed; connection discarded'))).toBe(true);
  expect(await store.get(`SELECT last_seq AS seq FROM namespaces`)).toEqual({ seq: 1 });
  await store.transaction((tx) => tx.run(`UPDATE namespaces SET last_seq = 2 WHERE name = 'default'`));
  expect(await store.get(`SELECT last_seq AS seq FROM namespaces`)).toEqual({ seq: 2 });
});

it('idle pooled connections dropped: logged, and the next queries get new connections', async () => {
  await Promise.all([store.get(`SELECT pg_sleep(0.05)`), store.get(`SELECT pg_sleep(0.05)`)]);
  expect(await terminate()).toBeGreaterThanOrEqual(2);
  await waitFor(() => logged.filter((line) => line.msg.includes('idle connection failed')).length >= 2);
  expect(await store.get(`SELECT last_seq AS seq FROM namespaces`)).toEqual({ seq: 1 });
  expect(await store.tryExclusive('sweep', async () => 'swept')).toEqual({ ran: true, value: 'swept' });
});

it('a hub stalled inside a transaction loses it (idle timeout): the write lock frees for the others', async () => {
  const stalling = await PgStore.open(database.url, { idleInTransactionTimeoutMs: 300, log: createLogger('silent') });
  try {
    let resume!: () => void;
    const stalled = new Promise<void>((resolve) => (resume = resolve));
    let locked!: () => void;
    const holding = new Promise<void>((resolve) => (locked = resolve));
    const stuck = stalling.transaction(async (tx) => {
      await tx.run(`UPDATE namespaces SET last_seq = 50 WHERE name = 'default'`);
      locked();
      await stalled; // e.g. the process is stopped, or cut off from the server
      await tx.run(`UPDATE namespaces SET last_seq = 51 WHERE name = 'default'`);
    });
    await holding;
    // waits for the write lock until the server ends the stalled transaction
    await store.transaction((tx) => tx.run(`UPDATE namespaces SET last_seq = 2 WHERE name = 'default'`));
    resume();
    await expect(stuck).rejects.toThrow();
    expect(await store.get(`SELECT last_seq AS seq FROM namespaces`)).toEqual({ seq: 2 });
    await stalling.transaction((tx) => tx.run(`UPDATE namespaces SET last_seq = 3 WHERE name = 'default'`));
    expect(await store.get(`SELECT last_seq AS seq FROM namespaces`)).toEqual({ seq: 3 });
  } finally {
    await stalling.close();
  }
});

it('an unreachable server fails open with a clear message and no password', async () => {
  const port = await freePort();
  const failure = PgStore.open(`postgres://hub:secret-pw@127.0.0.1:${port}/nowhere`);
  await expect(failure).rejects.toThrow(`PostgreSQL at postgres://hub:***@127.0.0.1:${port}/nowhere: `);
  await expect(failure).rejects.not.toThrow(/secret-pw/);
});
