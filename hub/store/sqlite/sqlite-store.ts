import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { oneRow, queryText, SavepointsNeeded, type Params, type Query, type RowsWrite, type Sql, type Store, type TransactionOptions, type Tx } from '../sql.js';
import type { Logger } from '../../log.js';
import { Checkpointer, DEFAULT_CHECKPOINT_POLICY, type CheckpointPolicy } from './checkpointer.js';
import { MIGRATIONS } from './migrations/index.js';
import { asStoreUnavailable } from '../unavailable.js';

/** A statement's own busy wait (busy_timeout): short, since it blocks the whole process while it waits. */
const BUSY_STEP_MS = 20;
/** How long a transaction waits for another connection's write lock, the event loop running meanwhile. */
export const DEFAULT_LOCK_WAIT_MS = 5000;

/**
 * The embedded engine: better-sqlite3 in WAL mode, one connection, one process.
 *
 * Calls are synchronous underneath; the Promise interface is the PostgreSQL engine's. Because a
 * transaction's `await`s let other code run in between, transactions take turns (a queue), and a
 * read outside a transaction waits while one is open, so it never sees uncommitted rows.
 *
 * synchronous=NORMAL in WAL mode (the default): a committed transaction is in the WAL file before
 * COMMIT returns, so it survives a crash of the hub process (not of the machine; docs/reliability.md).
 * synchronous=FULL (SESSION_HUB_SYNC=full) fsyncs it too: it survives a power loss.
 * WAL checkpoints run on a worker thread (checkpointer.ts), not inside a writer's COMMIT.
 *
 * Savepoints, as on PostgreSQL (sql.ts), are skipped unless a transaction asks for them
 * (`savepoints: 'always'`): SAVEPOINT + RELEASE per write cost ~1 µs each in a group commit where
 * writes almost never fail. A savepoint that fails after one of its statements changed rows poisons
 * the transaction: it is rolled back whole and rejects with `SavepointsNeeded`, and the caller runs
 * it again without the failing work (services/changes.ts).
 *
 * Another connection holding the write lock (the offline CLI, `sqlite3` opened by hand) makes a
 * transaction wait for it up to 5 s without blocking the process (begin()), then fail alone with
 * StoreUnavailable (answered `unavailable`, retryable); the transactions after it run as usual.
 */
export class SqliteStore implements Store {
  readonly dialect = 'sqlite' as const;
  private readonly statements = new Map<string, Database.Statement>();
  /** Settles when the open transaction (if any) has ended. */
  private turn: Promise<void> = Promise.resolve();
  private inTransaction = false;
  private savepoints = 0;
  /** This transaction's savepoint mode, and the skipped savepoints now open (innermost last). */
  private savepointMode: 'as-needed' | 'always' = 'as-needed';
  private readonly skipped: { wrote: boolean }[] = [];
  /** Why this transaction must be rolled back whole (a skipped savepoint failed after writing). */
  private poisoned: { cause: unknown } | undefined;
  /** Work to run just before this transaction's COMMIT (Tx.beforeCommit), by key. */
  private readonly commitHooks = new Map<string, () => Promise<void>>();
  private readonly tx: Tx;
  /**
   * The transactions' rowCache (sql.ts). Only a transaction sees it: it is checked against other
   * connections' commits at BEGIN, while this connection holds the write lock.
   */
  private readonly transactionCache = new Map<string, unknown>();
  /** `PRAGMA data_version` when rowCache was last known current: it changes when another connection commits. */
  private dataVersion = -1;
  private readonly dataVersionStatement: Database.Statement;

  constructor(
    readonly db: Database.Database,
    private readonly checkpointer?: Checkpointer,
    /** How long a transaction waits for the write lock another connection holds before it fails. */
    private readonly lockWaitMs = DEFAULT_LOCK_WAIT_MS,
  ) {
    this.dataVersionStatement = db.prepare('PRAGMA data_version').pluck();
    const store = this;
    this.tx = {
      dialect: 'sqlite',
      get: (query, params) => Promise.resolve(store.getNow(query, params, true)),
      all: (query, params) => Promise.resolve(store.allNow(query, params, true)),
      run: (query, params) => Promise.resolve(store.runNow(query, params, true)),
      write: (query, params) => Promise.resolve(void store.runNow(oneRow(query), params, true)),
      savepoint: (fn) => (store.savepointMode === 'always' ? store.savepoint(fn) : store.skippedSavepoint(fn)),
      rowCache: store.transactionCache,
      beforeCommit: (key, fn) => void store.commitHooks.set(key, fn),
    };
  }

  /** Opens (creating if needed) the database file and applies pending migrations. */
  static open(
    file: string,
    options: { migrations?: readonly string[]; log?: Logger; checkpoints?: CheckpointPolicy; synchronous?: 'normal' | 'full'; lockWaitMs?: number } = {},
  ): SqliteStore {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    const db = new Database(file);
    db.pragma('busy_timeout = 5000');
    // set only when not yet: `journal_mode = WAL` asks for a lock even on a WAL database, and fails
    // at once (no busy wait) while another connection (a running hub) holds the write lock
    if (db.pragma('journal_mode', { simple: true }) !== 'wal') db.pragma('journal_mode = WAL');
    // SESSION_HUB_SYNC=full: the WAL is fsynced at every COMMIT, so a power loss loses no acked write
    db.pragma(options.synchronous === 'full' ? 'synchronous = FULL' : 'synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db, options.migrations ?? MIGRATIONS);
    // from now on a statement waits at most this long, blocking the event loop (better-sqlite3 is
    // synchronous); a BEGIN waits longer for the write lock, in steps that let the loop run (begin())
    db.pragma(`busy_timeout = ${BUSY_STEP_MS}`);
    if (file === ':memory:') return new SqliteStore(db, undefined, options.lockWaitMs);
    db.pragma('wal_autocheckpoint = 0');
    const log = options.log;
    const checkpointer = new Checkpointer(file, options.checkpoints ?? DEFAULT_CHECKPOINT_POLICY, (message) => log?.error({ message }, 'WAL checkpoint failed'));
    return new SqliteStore(db, checkpointer, options.lockWaitMs);
  }

  async get<Row>(query: Query, params?: Params): Promise<Row | undefined> {
    if (this.inTransaction) await this.turn;
    return this.getNow(query, params);
  }

  async all<Row>(query: Query, params?: Params): Promise<Row[]> {
    if (this.inTransaction) await this.turn;
    return this.allNow(query, params);
  }

  async write(query: Query | RowsWrite, params?: Params): Promise<void> {
    await this.run(oneRow(query), params);
  }

  async run(query: Query, params?: Params): Promise<{ changes: number }> {
    // in a transaction of its own: it waits for another connection's write lock as a transaction
    // does (begin()), not for busy_timeout with the whole process blocked
    const result = await this.transaction((tx) => tx.run(query, params));
    // a write outside the store modules' transactions does not keep their rowCache current
    this.transactionCache.clear();
    return result;
  }

  transaction<T>(fn: (tx: Tx) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const previous = this.turn;
    let done!: () => void;
    this.turn = new Promise<void>((resolve) => (done = resolve));
    return previous.then(async () => {
      // everything from here is inside the try: a BEGIN that fails (another connection holds the
      // write lock past busy_timeout) must still end this turn, or every later call waits for ever
      try {
        this.savepointMode = options.savepoints ?? 'as-needed';
        // an earlier ROLLBACK that failed left the connection inside a transaction: end it first
        if (this.db.inTransaction) this.control('ROLLBACK');
        if (this.checkpointer?.restartWanted()) this.catchUpCheckpoint();
        // the usual case, no other connection writing, begins without waiting for a timer
        if (!this.beginNow()) await this.begin();
        // from here on reads outside the transaction wait for its end (they would see its rows)
        this.inTransaction = true;
        // holding the write lock: no other connection can commit until this transaction ends
        this.freshenCache();
        const value = await fn(this.tx);
        for (const flush of this.commitHooks.values()) await flush();
        if (this.poisoned) throw new SavepointsNeeded(this.poisoned.cause);
        this.control('COMMIT');
        this.checkpointer?.committed();
        return value;
      } catch (error) {
        // also when COMMIT failed and SQLite rolled back by itself
        this.transactionCache.clear();
        this.rollbackQuietly();
        throw error instanceof SavepointsNeeded ? error : asStoreUnavailable(error);
      } finally {
        this.inTransaction = false;
        this.poisoned = undefined;
        this.skipped.length = 0;
        this.commitHooks.clear();
        done();
      }
    });
  }

  /**
   * BEGIN IMMEDIATE after a first try found the write lock held by another connection (the offline
   * CLI, `sqlite3` opened by hand, the checkpoint worker): tries again for up to `lockWaitMs`; each
   * try blocks the event loop at most BUSY_STEP_MS, and the waits between tries let sockets, HTTP and reads go on. Past the
   * deadline the SQLITE_BUSY is thrown (answered `unavailable`: unavailable.ts).
   */
  private async begin(): Promise<void> {
    const deadline = performance.now() + this.lockWaitMs;
    for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
      await new Promise((resolve) => setTimeout(resolve, pause));
      if (this.beginNow(performance.now() >= deadline)) return;
    }
  }

  /** One try at BEGIN IMMEDIATE: false if another connection holds the write lock (thrown if `last`). */
  private beginNow(last = false): boolean {
    try {
      this.control('BEGIN IMMEDIATE');
      return true;
    } catch (error) {
      if (last || !String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) throw error;
      return false;
    }
  }

  /**
   * Rolls back what is open, keeping the error that got us here: a ROLLBACK that fails itself
   * (an I/O error) leaves the connection in its transaction, and the next transaction ends it first.
   */
  private rollbackQuietly(): void {
    if (!this.db.inTransaction) return;
    try {
      this.control('ROLLBACK');
    } catch {
      // retried at the next BEGIN (above); the original error is the one the callers need
    }
  }

  /**
   * The worker's checkpoints left a long WAL: copy the few frames committed since its last one, so
   * the BEGIN that follows finds the WAL fully copied and starts it over (checkpointer.ts). Never
   * fails a write: if it cannot run now, the worker asks again after its next checkpoint.
   */
  private catchUpCheckpoint(): void {
    try {
      this.db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // busy or failing: the WAL grows a little longer; the committed data is in it either way
    }
  }

  /** Empties transactionCache when another connection (the offline CLI) committed since it was last checked. */
  private freshenCache(): void {
    const version = this.dataVersionStatement.get() as number;
    if (version !== this.dataVersion) {
      this.transactionCache.clear();
      this.dataVersion = version;
    }
  }

  /** One process per SQLite file: there is no one else to exclude. */
  async tryExclusive<T>(_name: string, fn: () => Promise<T>): Promise<{ ran: true; value: T }> {
    return { ran: true, value: await fn() };
  }

  async schemaVersion(): Promise<number> {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  async close(): Promise<void> {
    await this.turn;
    await this.checkpointer?.stop();
    this.db.close();
  }

  private async savepoint<T>(fn: () => Promise<T>): Promise<T> {
    // SQLITE_FULL and the I/O errors can roll back the whole transaction, not just their statement:
    // a SAVEPOINT now would start a new transaction that its RELEASE commits, so a later write of
    // the batch would be stored although the batch fails
    if (!this.db.inTransaction) throw new Error('the transaction was rolled back by SQLite after an earlier error');
    const name = `sp${++this.savepoints}`;
    this.control(`SAVEPOINT ${name}`);
    try {
      const value = await fn();
      this.control(`RELEASE ${name}`);
      return value;
    } catch (error) {
      this.transactionCache.clear();
      // the savepoint is gone with the transaction: the original error is the one to report
      if (!this.db.inTransaction) throw error;
      this.control(`ROLLBACK TO ${name}`);
      this.control(`RELEASE ${name}`);
      throw error;
    } finally {
      this.savepoints--;
    }
  }

  /**
   * A savepoint not sent to SQLite. If fn fails before any of its statements changed a row there is
   * nothing to undo; if it fails after, the transaction is poisoned: rolled back whole at its end.
   */
  private async skippedSavepoint<T>(fn: () => Promise<T>): Promise<T> {
    const frame = { wrote: false };
    this.skipped.push(frame);
    try {
      return await fn();
    } catch (error) {
      if (frame.wrote) this.poison(error);
      throw error;
    } finally {
      this.skipped.pop();
    }
  }

  private poison(cause: unknown): void {
    this.poisoned ??= { cause };
    this.transactionCache.clear();
  }

  /** Transaction control through the statement cache: `exec` would parse the SQL on every call. */
  private control(sql: string): void {
    this.statement(sql).run();
  }

  private statement(query: Query): Database.Statement {
    const sql = queryText(query, 'sqlite');
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }

  // a statement without parameters must be called without a bindings object
  // `ofTx`: the statement is the open transaction's (through `tx`), not the store's own
  private getNow<Row>(query: Query, params?: Params, ofTx = false): Row | undefined {
    const statement = this.statement(query);
    const run = () => (params ? statement.get(params) : statement.get()) as Row | undefined;
    return ofTx ? this.execute(statement, run) : run();
  }

  private allNow<Row>(query: Query, params?: Params, ofTx = false): Row[] {
    const statement = this.statement(query);
    const run = () => (params ? statement.all(params) : statement.all()) as Row[];
    return ofTx ? this.execute(statement, run) : run();
  }

  private runNow(query: Query, params?: Params, ofTx = false): { changes: number } {
    const statement = this.statement(query);
    const run = () => (params ? statement.run(params) : statement.run()).changes;
    return { changes: ofTx ? this.execute(statement, run) : run() };
  }

  /**
   * Runs a statement of the open transaction, keeping the skipped savepoints' bookkeeping: a
   * statement that changed rows marks them as having written. A poisoned transaction runs nothing
   * more, and one SQLite rolled back by itself (SQLITE_FULL, I/O errors) is poisoned, so no later
   * statement runs outside it (autocommit) and its COMMIT rejects.
   */
  private execute<R>(statement: Database.Statement, run: () => R): R {
    // a tx used after its transaction ended (refused elsewhere) leaves no mark on the next one
    if (!this.inTransaction) return run();
    if (this.poisoned) throw new SavepointsNeeded(this.poisoned.cause);
    let value: R;
    try {
      value = run();
    } catch (error) {
      if (!this.db.inTransaction) this.poison(error);
      throw error;
    }
    if (!statement.readonly) for (const frame of this.skipped) frame.wrote = true;
    return value;
  }
}

/** Applies each migration above the database's user_version, each in its own transaction. */
export function migrate(db: Database.Database, migrations: readonly string[]): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new Error(`database schema v${current} is newer than this hub (v${migrations.length}); upgrade the hub`);
  }
  for (let version = current + 1; version <= migrations.length; version++) {
    db.transaction(() => {
      db.exec(migrations[version - 1]!);
      db.pragma(`user_version = ${version}`);
    })();
  }
}
