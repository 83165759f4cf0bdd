/**
 * The Store contract (hub/store/sql.ts) on both engines: better-sqlite3 on a temp file and PostgreSQL
 * on a fresh database of the test server. Then what only PostgreSQL has to hold: several hub
 * processes (here: several PgStore pools) on one database.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PgStore } from '../../hub/store/postgres/pg-store.js';
import type { Store, Tx } from '../../hub/store/sql.js';
import { SqliteStore } from '../../hub/store/sqlite/sqlite-store.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { STORE_ENGINES as engines, type EngineTarget as Target } from '../helpers/store-engines.js';

const LATEST_SCHEMA = 6;
const T = 1_700_000_000_123; // a millisecond timestamp: past 32 bits

let target: Target;
let opened: Store[] = [];

async function open(): Promise<Store> {
  const store = await target.open();
  opened.push(store);
  return store;
}

afterEach(async () => {
  for (const store of opened) await store.close();
  opened = [];
  await target.cleanup();
});

const INSERT_NAMESPACE = `INSERT INTO namespaces (name, last_seq) VALUES (@name, @seq)`;
const SEQ_OF = `SELECT last_seq AS "lastSeq" FROM namespaces WHERE name = @name`;

async function seqOf(sql: Pick<Store, 'get'>, name: string): Promise<number | undefined> {
  return (await sql.get<{ lastSeq: number }>(SEQ_OF, { name }))?.lastSeq;
}

describe.each(engines)('$name store', (engine) => {
  let store: Store;
  beforeEach(async () => {
    target = await engine.target();
    store = await open();
  });

  it('runs get/all/run with named parameters; a name used twice binds one value; run counts changed rows', async () => {
    expect(await store.run(INSERT_NAMESPACE, { name: 'a', seq: 1 })).toEqual({ changes: 1 });
    await store.run(INSERT_NAMESPACE, { name: 'b', seq: 2 });
    await store.run(INSERT_NAMESPACE, { name: "it's @seq -- not a param", seq: 3 });

    expect(await store.get(`SELECT name, last_seq AS "lastSeq" FROM namespaces WHERE name = @name`, { name: 'b' })).toEqual({ name: 'b', lastSeq: 2 });
    expect(await store.get(SEQ_OF, { name: 'missing' })).toBeUndefined();
    expect(await store.all(`SELECT name FROM namespaces WHERE last_seq >= @min AND name <> '@min' ORDER BY name`, { min: 2 })).toEqual([
      { name: 'b' },
      { name: "it's @seq -- not a param" },
    ]);
    // @x twice (and @-text inside a literal left alone)
    expect(await store.all(`SELECT name FROM namespaces WHERE last_seq = @x OR last_seq = @x + 1 ORDER BY name`, { x: 1 })).toEqual([{ name: 'a' }, { name: 'b' }]);
    expect(await store.run(`UPDATE namespaces SET pruned_through = @at WHERE last_seq < @below`, { at: T, below: 3 })).toEqual({ changes: 2 });
    expect(await store.run(`DELETE FROM namespaces WHERE name = @name`, { name: 'nobody' })).toEqual({ changes: 0 });
    // no parameters at all
    expect(await store.get(`SELECT COUNT(*) AS n FROM namespaces`)).toEqual({ n: 3 });
    // the engine-specific text of a query
    const dialectOf = { sqlite: `SELECT 'sqlite' AS engine`, postgres: `SELECT 'postgres' AS engine` };
    expect(await store.get(dialectOf)).toEqual({ engine: engine.name });
  });

  it('rejects a query whose parameter is missing from params, naming it; undefined binds NULL', async () => {
    await expect(store.get(SEQ_OF, { nam: 'a' })).rejects.toThrow(/missing.*parameter.*name/i);
    await expect(store.run(INSERT_NAMESPACE, { name: 'a' })).rejects.toThrow(/missing.*parameter.*seq/i);
    await expect(store.all(SEQ_OF)).rejects.toThrow(/missing.*parameter/i);
    expect(await store.get(`SELECT COUNT(*) AS n FROM namespaces WHERE name = @name OR @name IS NULL`, { name: undefined })).toEqual({ n: 0 });
    expect(await seqOf(store, 'a')).toBeUndefined();
  });

  it('commits a transaction, and rolls all of it back when fn throws', async () => {
    const value = await store.transaction(async (tx) => {
      await tx.run(INSERT_NAMESPACE, { name: 'kept', seq: 1 });
      await tx.run(`UPDATE namespaces SET last_seq = last_seq + 1 WHERE name = @name`, { name: 'kept' });
      return seqOf(tx, 'kept');
    });
    expect(value).toBe(2);
    expect(await seqOf(store, 'kept')).toBe(2);

    const failure = new Error('boom');
    await expect(
      store.transaction(async (tx) => {
        await tx.run(INSERT_NAMESPACE, { name: 'lost', seq: 1 });
        await tx.run(`UPDATE namespaces SET last_seq = 100 WHERE name = @name`, { name: 'kept' });
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await seqOf(store, 'lost')).toBeUndefined();
    expect(await seqOf(store, 'kept')).toBe(2);

    // a failing statement rolls back the same way, and the store goes on working
    await expect(
      store.transaction(async (tx) => {
        await tx.run(INSERT_NAMESPACE, { name: 'dup', seq: 1 });
        await tx.run(INSERT_NAMESPACE, { name: 'dup', seq: 2 });
      }),
    ).rejects.toThrow(/unique|duplicate/i);
    expect(await seqOf(store, 'dup')).toBeUndefined();
    await store.transaction((tx) => tx.run(INSERT_NAMESPACE, { name: 'after', seq: 7 }));
    expect(await seqOf(store, 'after')).toBe(7);
  });

  it("with savepoints: 'always', rolls back a failed savepoint alone; the transaction goes on and commits the rest", async () => {
    await store.transaction(async (tx) => {
      await tx.run(INSERT_NAMESPACE, { name: 'before', seq: 1 });
      await expect(
        tx.savepoint(async () => {
          await tx.run(INSERT_NAMESPACE, { name: 'inside', seq: 2 });
          await tx.run(INSERT_NAMESPACE, { name: 'before', seq: 3 }); // duplicate key: the statement fails
        }),
      ).rejects.toThrow(/unique|duplicate/i);
      expect(await seqOf(tx, 'inside')).toBeUndefined();
      // savepoints nest; a successful one keeps its rows
      const kept = await tx.savepoint(async () => {
        await tx.run(INSERT_NAMESPACE, { name: 'outer', seq: 4 });
        await tx.savepoint(async () => tx.run(INSERT_NAMESPACE, { name: 'inner', seq: 5 })).catch(() => undefined);
        await tx.savepoint(async () => {
          await tx.run(INSERT_NAMESPACE, { name: 'dropped', seq: 6 });
          throw new Error('rejected write');
        }).catch(() => undefined);
        return 'kept';
      });
      expect(kept).toBe('kept');
      await tx.run(INSERT_NAMESPACE, { name: 'after', seq: 7 });
    }, { savepoints: 'always' });
    const names = await store.all<{ name: string }>(`SELECT name FROM namespaces ORDER BY name`);
    expect(names.map((row) => row.name)).toEqual(['after', 'before', 'inner', 'outer']);
  });

  it('by default, a savepoint that fails after changing rows either rolls back alone or fails the whole transaction with SavepointsNeeded — never commits half of it', async () => {
    const attempt = () =>
      store.transaction(async (tx) => {
        await tx.savepoint(() => tx.run(INSERT_NAMESPACE, { name: 'first', seq: 1 }));
        await tx
          .savepoint(async () => {
            await tx.run(INSERT_NAMESPACE, { name: 'half', seq: 2 });
            throw new Error('failed after writing');
          })
          .catch(() => undefined);
        await tx.savepoint(() => tx.run(INSERT_NAMESPACE, { name: 'last', seq: 3 })).catch(() => undefined);
      });
    const outcome = await attempt().then(
      () => 'committed',
      (error: Error) => error.name,
    );
    const names = (await store.all<{ name: string }>(`SELECT name FROM namespaces ORDER BY name`)).map((row) => row.name);
    if (outcome === 'committed') expect(names).toEqual(['first', 'last']); // a real savepoint (SQLite)
    else {
      expect(outcome).toBe('SavepointsNeeded'); // skipped savepoints (PostgreSQL): nothing committed
      expect(names).toEqual([]);
    }
    expect(store.dialect === 'sqlite' ? 'committed' : 'SavepointsNeeded').toBe(outcome);
  });

  it('by default, a statement that fails outside a real savepoint fails the transaction with SavepointsNeeded or is absorbed — never a COMMIT that silently rolled back', async () => {
    await store.run(INSERT_NAMESPACE, { name: 'taken', seq: 1 });
    const outcome = await store
      .transaction(async (tx) => {
        await tx.savepoint(() => tx.run(INSERT_NAMESPACE, { name: 'kept', seq: 2 }));
        await tx.savepoint(() => tx.run(INSERT_NAMESPACE, { name: 'taken', seq: 3 })).catch(() => undefined); // duplicate key
        return 'committed';
      })
      .catch((error: Error) => error.name);
    const names = (await store.all<{ name: string }>(`SELECT name FROM namespaces ORDER BY name`)).map((row) => row.name);
    if (store.dialect === 'sqlite') {
      expect(outcome).toBe('committed');
      expect(names).toEqual(['kept', 'taken']);
    } else {
      expect(outcome).toBe('SavepointsNeeded');
      expect(names).toEqual(['taken']);
    }
  });

  it('keeps every sibling savepoint that succeeds, and one that fails before writing changes nothing', async () => {
    await store.transaction(async (tx) => {
      for (let i = 0; i < 100; i++) {
        await tx.savepoint(async () => {
          await seqOf(tx, `n${i - 1}`); // a read first: the savepoint is taken only before the write
          await tx.run(INSERT_NAMESPACE, { name: `n${i}`, seq: i });
        });
        if (i % 10 === 0) {
          await tx
            .savepoint(async () => {
              await seqOf(tx, `n${i}`);
              throw new Error('refused before writing');
            })
            .catch(() => undefined);
        }
      }
    });
    const rows = await store.all<{ n: number }>(`SELECT COUNT(*) AS n FROM namespaces`);
    expect(rows[0]!.n).toBe(100);
    expect(await seqOf(store, 'n99')).toBe(99);
  });

  it('answers BIGINT times, counts and 0/1 flags as JS numbers', async () => {
    await store.run(
      `INSERT INTO sessions (sid, namespace, tag, flavor, created_at, updated_at, metadata, metadata_version, agent_state_version,
         lifecycle_state, lifecycle_since, last_activity_at, active, alive_at, thinking)
       VALUES (@sid, 'default', 'tag-1', 'claude', @t, @t, '{"a":1}', 9007199254740991, 0, 'running', @t, @t, 1, @t, 0)`,
      { sid: 's1', t: T },
    );
    const row = await store.get<Record<string, unknown>>(
      `SELECT created_at, metadata, metadata_version, active, thinking, alive_at, active_at, COUNT(*) AS n FROM sessions WHERE sid = @sid GROUP BY sid`,
      { sid: 's1' },
    );
    expect(row).toEqual({
      created_at: T,
      metadata: '{"a":1}',
      metadata_version: Number.MAX_SAFE_INTEGER,
      active: 1,
      thinking: 0,
      alive_at: T,
      active_at: null,
      n: 1,
    });
    const total = await store.get<{ n: unknown; newest: unknown }>(`SELECT COUNT(*) AS n, MAX(updated_at) AS newest FROM sessions`);
    expect(total).toEqual({ n: 1, newest: T });
  });

  it('stores text holding U+0000 (PostgreSQL TEXT cannot) and finds it again by the same value; empty text stays empty, not NULL', async () => {
    // a runner's prompt, a tag or an archive reason may hold NUL; PostgreSQL rejects it in TEXT
    // ("invalid byte sequence for encoding UTF8: 0x00"), which failed the write there alone
    const text = 'before\u0000after';
    await store.run(`INSERT INTO tokens (token_hash, role, namespace, created_at, source) VALUES (@hash, 'runner', @text, @t, '')`, { hash: 'h1', text, t: T });
    const row = await store.get<{ namespace: string; source: string | null }>(`SELECT namespace, source FROM tokens WHERE namespace = @text`, { text });
    expect(row).toBeDefined();
    expect([text, 'before\uFFFDafter']).toContain(row!.namespace);
    expect(row!.source).toBe('');
  });

  it('a read outside a transaction never sees the open transaction’s rows', async () => {
    let outside: Promise<number | undefined> | undefined;
    await expect(
      store.transaction(async (tx) => {
        await tx.run(INSERT_NAMESPACE, { name: 'uncommitted', seq: 1 });
        outside = seqOf(store, 'uncommitted');
        // let the outside read run (PostgreSQL) or queue (SQLite) before the rollback
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await outside).toBeUndefined();
  });

  it('runs concurrent transactions of one store one after the other: no lost read-modify-write', async () => {
    await store.run(INSERT_NAMESPACE, { name: 'counter', seq: 0 });
    await Promise.all(
      Array.from({ length: 40 }, () =>
        store.transaction(async (tx) => {
          const seq = (await seqOf(tx, 'counter'))!;
          await new Promise((resolve) => setImmediate(resolve));
          await tx.run(`UPDATE namespaces SET last_seq = @seq WHERE name = 'counter'`, { seq: seq + 1 });
        }),
      ),
    );
    expect(await seqOf(store, 'counter')).toBe(40);
  });

  it('applies migrations once: reopening keeps the data and the schema version', async () => {
    expect(await store.schemaVersion()).toBe(LATEST_SCHEMA);
    await store.run(INSERT_NAMESPACE, { name: 'persisted', seq: 5 });
    await store.close();
    opened = opened.filter((s) => s !== store);
    const again = await open();
    expect(await again.schemaVersion()).toBe(LATEST_SCHEMA);
    expect(await seqOf(again, 'persisted')).toBe(5);
  });
});

describe('postgres store: several hub processes on one database', () => {
  let url: string;
  beforeEach(async () => {
    const db = await createTestDatabase();
    url = db.url;
    target = { open: () => PgStore.open(url, { maxConnections: 4 }), cleanup: db.drop };
  });

  it('two processes opening a fresh database at once both come up on the latest schema, migrated once', async () => {
    const [a, b] = await Promise.all([open(), open()]);
    expect(await a!.schemaVersion()).toBe(LATEST_SCHEMA);
    expect(await b!.schemaVersion()).toBe(LATEST_SCHEMA);
    const applied = await a!.all<{ version: number }>(`SELECT version FROM schema_migrations ORDER BY version`);
    expect(applied).toEqual(Array.from({ length: LATEST_SCHEMA }, (_, i) => ({ version: i + 1 })));
  });

  it('serializes write transactions across two stores: 2 × 50 read-modify-write increments lose nothing, seq has no gap or duplicate', async () => {
    const [a, b] = await Promise.all([open(), open()]);
    await a!.run(INSERT_NAMESPACE, { name: 'default', seq: 0 });
    const committed: number[] = [];
    const increments = (store: Store) =>
      Array.from({ length: 50 }, () =>
        store.transaction(async (tx) => {
          const seq = (await seqOf(tx, 'default'))! + 1;
          await tx.run(`INSERT INTO events (namespace, seq, id, sid, created_at, body) VALUES ('default', @seq, @id, 's', @t, '{}')`, {
            seq,
            id: `e${seq}`,
            t: T,
          });
          await tx.run(`UPDATE namespaces SET last_seq = @seq WHERE name = 'default'`, { seq });
          return seq;
        }).then((seq) => committed.push(seq)),
      );
    await Promise.all([...increments(a!), ...increments(b!)]);
    expect(await seqOf(a!, 'default')).toBe(100);
    const seqs = await b!.all<{ seq: number }>(`SELECT seq FROM events ORDER BY seq`);
    expect(seqs.map((row) => row.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    // every transaction got its own seq
    expect(committed.sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });

  it('tryExclusive runs fn in one store while another store is refused, and frees the lock after', async () => {
    const [a, b] = await Promise.all([open(), open()]);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const first = a!.tryExclusive('sweep', async () => {
      entered();
      await held;
      return 'a swept';
    });
    await inside;
    expect(await b!.tryExclusive('sweep', async () => 'b swept')).toEqual({ ran: false });
    // another name is another lock
    expect(await b!.tryExclusive('other', async () => 'b other')).toEqual({ ran: true, value: 'b other' });
    release();
    expect(await first).toEqual({ ran: true, value: 'a swept' });
    expect(await b!.tryExclusive('sweep', async () => 'b swept')).toEqual({ ran: true, value: 'b swept' });
    // a throwing fn frees the lock too
    await expect(a!.tryExclusive('sweep', async () => Promise.reject(new Error('sweep failed')))).rejects.toThrow('sweep failed');
    expect(await b!.tryExclusive('sweep', async () => 1)).toEqual({ ran: true, value: 1 });
  });

  it('refuses a database migrated by a newer hub', async () => {
    const store = await open();
    await store.run(`INSERT INTO schema_migrations (version, applied_at) VALUES (@v, @t)`, { v: LATEST_SCHEMA + 1, t: T });
    await expect(PgStore.open(url)).rejects.toThrow(`database schema v${LATEST_SCHEMA + 1} is newer than this hub (v${LATEST_SCHEMA}); upgrade the hub`);
  });

  it('a tx used after its transaction ended is refused', async () => {
    const store = await open();
    const leaked = await store.transaction(async (tx) => tx);
    await expect(leaked.get(`SELECT 1 AS one`)).rejects.toThrow(/transaction already ended/);
  });

  it('a statement sent through tx while its COMMIT or ROLLBACK is on the way is refused, never run outside the transaction', async () => {
    const store = await open();
    // fn settles while a statement of its own is still running; a follow-up is sent once it answers,
    // which is after the engine queued COMMIT (or ROLLBACK) behind it on the same connection
    let late: Promise<unknown> | undefined;
    const lateWrite = (tx: Tx, name: string) =>
      tx
        .get(`SELECT pg_sleep(0.2)`)
        .then(() => tx.run(INSERT_NAMESPACE, { name, seq: 1 }))
        .then(
          () => 'ran',
          (error: Error) => error.message,
        );
    await store.transaction(async (tx) => {
      late = lateWrite(tx, 'after-commit');
    });
    expect(await late).toMatch(/transaction already ended/);
    await expect(
      store.transaction(async (tx) => {
        late = lateWrite(tx, 'after-rollback');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await late).toMatch(/transaction already ended/);
    expect(await seqOf(store, 'after-commit')).toBeUndefined();
    expect(await seqOf(store, 'after-rollback')).toBeUndefined();
  });
});
