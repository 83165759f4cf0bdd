import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createLogger, withoutPassword, type Logger } from '../../log.js';
import { CarriedRowsStale, CommitOutcomeUnknown, oneRow, queryText, SavepointsNeeded, type Params, type Query, type Sql, type Store, type TransactionOptions, type Tx } from '../sql.js';
import { deferRows, takeDeferred, type Deferred, type Statement } from './deferred-writes.js';
import { exclusiveLockKey, NAMESPACE_LOCK_CLASS, WRITE_LOCK_KEY } from './advisory-locks.js';
import { NamespaceConnections } from './namespace-connections.js';
import { WriteTurns } from './write-turns.js';
import { currentVersion, hasHubSchema, migrate, NoHubSchema } from './migrate.js';
import { PG_MIGRATIONS } from './migrations/index.js';
import { migration024 } from './migrations/024-write-claims.js';
import { bindValues, toPositional, type Positional } from './named-params.js';
import { asStoreUnavailable } from '../unavailable.js';

export interface PgStoreOptions {
  log?: Logger;
  /** Pool size per hub process (default 10). */
  maxConnections?: number;
  migrations?: readonly string[];
  /**
   * The server ends a transaction left idle this long (default 30 s), freeing the write lock: a hub
   * process that hangs or is cut off mid-transaction cannot stall every other one for good.
   */
  idleInTransactionTimeoutMs?: number;
  /**
   * Open only a database some hub has already migrated (the offline CLI): one without the hub
   * schema (a wrong database name in the URL) fails with `NoHubSchema` and is left untouched.
   */
  existingOnly?: boolean;
  /**
   * Keep each namespace's rows between its transactions (default true; `Tx.carried`, "Carried rows"
   * below). Off, every transaction reads what it needs afresh and claims nothing: one setting for
   * every process sharing the database (a process that does not claim is not seen by those that carry).
   */
  carryRows?: boolean;
}

/**
 * BIGINT (int8: times in ms, seq, versions, COUNT(*)) comes back as a JS number, as from SQLite;
 * `pg` answers strings by default. Set on this pool only, not pg's global parsers. Values past
 * 2^53 would lose digits silently, so they fail the query instead (none of the hub's columns get there).
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === pg.types.builtins.INT8 && format !== 'binary') return parseInt8;
    return pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};

function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new Error(`BIGINT ${text} does not fit a JS number`);
  return value;
}

/** A transaction's Sql, and why it must be rolled back whole (`depth`: the innermost savepoint still able to undo it, -1 for none). */
type PgTx = Tx & {
  poisoned?: { cause: unknown; depth: number };
  /** Statements whose answer nobody reads, sent with the next statement or with COMMIT. */
  deferred: Deferred[];
  /** beforeCommit's work, by key. */
  commitHooks: Map<string, () => Promise<void>>;
  /** A statement that may change rows was sent or deferred. */
  wrote: boolean;
};

interface StatementResult {
  rows: pg.QueryResultRow[];
  rowCount: number;
  command: string;
}

const BEGIN: Statement = { name: 'hub_begin', text: 'BEGIN ISOLATION LEVEL READ COMMITTED', values: [] };
const LOCK_ALL: Statement = { name: 'hub_lock_all', text: `SELECT pg_advisory_xact_lock(${WRITE_LOCK_KEY})`, values: [] };
/**
 * A namespace's two locks in one statement (one Bind/Execute/Sync less per batch): PostgreSQL
 * evaluates a SELECT's output columns left to right, so the write key (shared) is always taken
 * before the namespace's lock, the order every transaction keeps.
 */
const lockNamespace = (namespace: string): Statement => ({
  name: 'hub_lock_namespace_shared',
  text: `SELECT pg_advisory_xact_lock_shared(${WRITE_LOCK_KEY}), pg_advisory_xact_lock(${NAMESPACE_LOCK_CLASS}, hashtext($1))`,
  values: [namespace],
});
/** As lockNamespace, with the writer claim of a store that carries rows. */
const lockAndClaimNamespace = (namespace: string, claim: WriterClaim): Statement => ({
  name: 'hub_lock_namespace_claim',
  // then the claim (postgres/migrations/024), under both locks: it answers the all-namespaces writer
  text: `SELECT pg_advisory_xact_lock_shared(${WRITE_LOCK_KEY}), pg_advisory_xact_lock(${NAMESPACE_LOCK_CLASS}, hashtext($1)),
    hub_claim_namespace($2, $3, $4, $5) AS all_writer`,
  values: [namespace, `ns:${namespace}`, claim.expected?.writer ?? null, claim.expected?.allWriter ?? null, claim.mine],
  onRows: (rows) => claim.answered((rows[0]?.all_writer as string | null | undefined) ?? null),
});
const claimAll = (mine: string): Statement => ({ name: 'hub_claim_all', text: 'SELECT hub_claim_all($1)', values: [mine] });
const COMMIT: Statement = { name: 'hub_commit', text: 'COMMIT', values: [] };

/** hub_claim_namespace's refusal (another writer wrote the namespace) and hub_expect's (a row taken as new exists): carried rows not current. */
const ANOTHER_WRITER = 'HB001';
const NOT_NEW = 'HB002';
const isStale = (error: unknown) => error instanceof pg.DatabaseError && (error.code === ANOTHER_WRITER || error.code === NOT_NEW);
/** "current transaction is aborted": a statement after the one that failed. */
const isAborted = (error: unknown) => error instanceof pg.DatabaseError && error.code === '25P02';
/** What a poisoned transaction's next statement or COMMIT fails with. */
const poisonError = (cause: unknown) => (isStale(cause) ? new CarriedRowsStale(cause) : new SavepointsNeeded(cause));

/*
 * Carried rows (issue 31). A namespace's rowCache outlives its transaction: the next transaction of
 * this process on the namespace starts from the rows the last one read and wrote, so a fleet's
 * steady traffic reads nothing and a batch is one round trip (BEGIN, the locks and the claim, the
 * writes, COMMIT). Every write transaction claims its scope in `write_claims` (the namespace's, or
 * `*` for one of any namespace that wrote); a carried transaction's claim names the writer it
 * expects, the last transaction started on these rows, and the all-namespaces writer of then, and
 * fails (HB001: CarriedRowsStale) if either moved; a row taken as new that exists fails it too
 * (HB002). Chained that way, a transaction that started while the one before was committing
 * commits only if that one did. The rows are read afresh (a
 * new cache) after any failure on them, after an all-namespaces transaction of this process wrote,
 * past MAX_CARRIED_ROWS entries, and for a while after another process wrote the namespace.
 */
interface CarriedRows {
  rows: Map<string, unknown>;
  /** The writer id of the last transaction started on these rows: the next one expects it. */
  writer: string;
  /** The all-namespaces writer as `writer`'s claim found it; undefined until it answered. */
  allWriter: string | null | undefined;
  /** False once a transaction on them failed, or rows of the namespace may have changed otherwise. */
  valid: boolean;
}

/** A namespace transaction's claim: its writer id, the writers it expects when it carries rows, and what its claim answered. */
interface WriterClaim {
  mine: string;
  expected?: { writer: string; allWriter: string | null };
  answered(allWriter: string | null): void;
}

/** Past this many entries a namespace's rows are read afresh (bounds memory and the scans some writes make of them). */
const MAX_CARRIED_ROWS = 4000;
/** After another writer changed a namespace, its rows are not carried for this long (two processes writing one tenant). */
const CONTENDED_MS = 1000;

/**
 * The engine for several hub processes sharing one PostgreSQL database (SESSION_HUB_DATABASE_URL).
 * Queries are the store modules' `@name` texts, rewritten once each to `$1..$n` and run as named
 * prepared statements (parsed and planned once per connection).
 */
export class PgStore implements Store {
  readonly dialect = 'postgres' as const;
  private readonly positional = new Map<string, Positional & { name: string; readOnly: boolean }>();
  private readonly turns = new WriteTurns();
  private readonly carriedRows = new Map<string, CarriedRows>();
  private readonly contendedUntil = new Map<string, number>();
  /** Per namespace, when the last transaction started on it holds its locks (or ended). */
  private readonly locksGranted = new Map<string, Promise<void>>();
  private readonly namespaceConnections = new NamespaceConnections(() => this.checkout());
  private readonly writerPrefix = randomUUID();
  private writerCount = 0;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly log: Logger,
    private readonly carryRows: boolean,
  ) {}

  /** Connects, applies pending migrations (waiting for another process that is migrating) and returns the store. */
  static async open(url: string, options: PgStoreOptions = {}): Promise<PgStore> {
    const log = options.log ?? createLogger('silent');
    const pool = new pg.Pool({
      connectionString: url,
      max: options.maxConnections ?? 10,
      application_name: 'session-hub',
      types,
      idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? 30_000,
      // a server that vanished without closing the connection is noticed, not waited on forever
      keepAlive: true,
      connectionTimeoutMillis: 10_000,
      // statements issued together go out together: a transaction's deferred writes and its next
      // read (or COMMIT) cost one round trip (PgStore.send)
      pipeline: true,
    });
    // A connection dropped while idle in the pool (server restart, network): log it; the pool
    // replaces it. Without a listener, pg would crash the process with an unhandled 'error'.
    pool.on('error', (error) => log.error({ err: error }, 'postgres: idle connection failed'));
    // a schema without the writer chain (a test's older migrations) cannot carry rows
    const migrations = options.migrations ?? PG_MIGRATIONS;
    const store = new PgStore(pool, log, (options.carryRows ?? true) && migrations.includes(migration024));
    try {
      await store.withClient(async (client) => {
        if (options.existingOnly && !(await hasHubSchema(client))) throw new NoHubSchema();
        return migrate(client, migrations);
      });
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw new Error(`PostgreSQL at ${withoutPassword(url)}: ${(error as Error).message}`, { cause: error });
    }
    return store;
  }

  async get<Row>(query: Query, params?: Params): Promise<Row | undefined> {
    return (await this.execute<Row>(this.pool, query, params)).rows[0];
  }

  async all<Row>(query: Query, params?: Params): Promise<Row[]> {
    return (await this.execute<Row>(this.pool, query, params)).rows;
  }

  async run(query: Query, params?: Params): Promise<{ changes: number }> {
    return { changes: (await this.execute(this.pool, query, params)).rowCount ?? 0 };
  }

  async write(query: Query, params?: Params): Promise<void> {
    await this.run(query, params);
  }

  /**
   * One transaction on one connection: a pooled one, or the namespace's while the transactions before
   * it on that namespace travel (namespace-connections.ts). It first takes the hub's write lock, a
   * transaction-scoped advisory lock every hub process takes, so write transactions run one at a
   * time across the whole cluster, like SQLite's single writer. That is the design, not a shortcut:
   * - compare-and-set reads a version and writes on it with nothing able to change it in between,
   *   so it never needs a retry loop or SERIALIZABLE conflict handling;
   * - the per-namespace seq is read, incremented and written under the lock, so it is strictly
   *   increasing across processes, and transactions commit in seq order: a reader never sees seq
   *   n+1 committed before n (replay by `lastSeq` would skip n for good otherwise).
   * The lock is taken before any other statement, and the isolation is READ COMMITTED (each
   * statement sees everything committed before it), so every statement sees all earlier writers.
   * Throughput is bounded by one writer at a time; group commit (services/changes.ts) batches many
   * writes into one transaction, which is what makes that enough.
   */
  async transaction<T>(fn: (tx: Tx) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    try {
      return await this.transactionInTurn(fn, options);
    } catch (error) {
      // rows carried that another writer had changed: once more, read afresh (group commit's batches,
      // which overlap, run again themselves, after the batch before: services/changes.ts)
      if (error instanceof CarriedRowsStale && !options.onCommitSent) return this.transactionInTurn(fn, options);
      throw error;
    }
  }

  private async transactionInTurn<T>(fn: (tx: Tx) => Promise<T>, options: TransactionOptions): Promise<T> {
    const done = await this.turns.take(options.namespace);
    // the next transaction's turn comes with this one's COMMIT sent: it waits on the lock meanwhile
    const onCommitSent = options.onCommitSent && (() => {
      done();
      options.onCommitSent!();
    });
    try {
      return await this.transactionNow(fn, options.savepoints ?? 'as-needed', options.namespace, onCommitSent);
    } catch (error) {
      // the database down or restarting, a full disk: answered `unavailable`, which clients retry
      // (a COMMIT cut off keeps its own error: its answer must say the outcome is unknown)
      throw error instanceof SavepointsNeeded || error instanceof CommitOutcomeUnknown || error instanceof CarriedRowsStale ? error : asStoreUnavailable(error);
    } finally {
      done();
    }
  }

  private async transactionNow<T>(fn: (tx: Tx) => Promise<T>, savepoints: 'as-needed' | 'always', namespace: string | undefined, onCommitSent: (() => void) | undefined): Promise<T> {
    // a namespace's carried transactions follow one another on one connection (namespace-connections.ts)
    const connection = namespace !== undefined && this.carryRows ? await this.namespaceConnections.take(namespace) : await this.pooled();
    const { client } = connection;
    let broken: Error | undefined;
    let ended = false;
    let committing = false;
    /**
     * The server ended the transaction already: its COMMIT was answered (COMMIT, or ROLLBACK after a
     * failed statement). Nothing more is sent: the next transaction's statements may be behind it.
     */
    let endedOnServer = false;
    const mine = `${this.writerPrefix}:${++this.writerCount}`;
    // every process of a cluster claims, or none: carryRows is one setting for all of them
    const carry = namespace === undefined || !this.carryRows ? undefined : this.rowsFor(namespace, savepoints, mine);
    const carried = carry?.claim.expected !== undefined;
    let granted = () => undefined as void;
    const grant = namespace === undefined ? undefined : new Promise<void>((resolve) => (granted = resolve));
    const grantedBefore = namespace === undefined ? undefined : this.locksGranted.get(namespace);
    if (grant) this.locksGranted.set(namespace!, grant);
    let tx: PgTx | undefined;
    try {
      let opening = namespace === undefined ? [BEGIN, LOCK_ALL] : [BEGIN, carry ? lockAndClaimNamespace(namespace, carry.claim) : lockNamespace(namespace)];
      if (grant) {
        const lock = opening[1]!;
        opening = [BEGIN, { ...lock, onRows: (rows) => (lock.onRows?.(rows), granted()) }];
      }
      // The transaction before this one (group commit starts it once that one's COMMIT is sent) may
      // have sent its locks only with its COMMIT, having read nothing: this one sends nothing until
      // they are granted. Its own lock, granted first, would be held while group commit waits for that
      // one's outcome, which waits for the lock (a deadlock no server sees); a carried one would fail
      // its claim and run again. Its work before its first statement goes on meanwhile.
      // On the namespace's connection, behind the one before, the server keeps the order itself.
      const firstSend = carried || connection.shared ? undefined : grantedBefore;
      tx = this.txOn(client, () => ended, savepoints, namespace, carry?.rows.rows ?? new Map(), carried, firstSend);
      // 'as-needed': BEGIN and the locks go out with the transaction's first statement
      if (savepoints === 'always') {
        await firstSend;
        await this.send(client, opening);
      }
      else tx.deferred.push(...opening);
      let value: T;
      try {
        value = await fn(tx);
        for (const [, hook] of tx.commitHooks) await hook();
      } finally {
        // from here on a statement through tx would be queued behind COMMIT/ROLLBACK on this
        // connection and run outside the transaction (autocommit, without the write lock)
        ended = true;
      }
      if (tx.poisoned) throw poisonError(tx.poisoned.cause);
      committing = true;
      // a transaction of any namespace that wrote may have changed rows every namespace keeps
      const claims = namespace === undefined && this.carryRows && tx.wrote ? [claimAll(mine)] : [];
      if (claims.length > 0) this.forgetCarriedRows();
      await firstSend;
      const statements = [...takeDeferred(tx.deferred, this.compile), ...claims, COMMIT];
      let committed: StatementResult;
      try {
        const sending = this.send(client, statements);
        onCommitSent?.();
        committed = await sending;
      } catch (error) {
        if (!(error instanceof pg.DatabaseError)) throw new CommitOutcomeUnknown(error);
        // a failed COMMIT ends the transaction too
        endedOnServer = true;
        if (isStale(error)) throw new CarriedRowsStale(error);
        // a deferred write failed: nothing is stored; the batch runs again with real savepoints to find it
        if ((error as { failedAt?: number }).failedAt! < statements.length - 1) throw new SavepointsNeeded(error);
        throw error;
      }
      endedOnServer = true;
      // COMMIT of a transaction an earlier failed statement aborted answers ROLLBACK, not an error
      if (committed.command !== 'COMMIT') throw new SavepointsNeeded(new Error(`COMMIT answered ${committed.command}`));
      return value;
    } catch (thrown) {
      // "aborted" from a statement whose round trip went with the one that failed: that one's reason
      const error = isAborted(thrown) && tx?.poisoned && !isAborted(tx.poisoned.cause) ? poisonError(tx.poisoned.cause) : thrown;
      // whatever it wrote into the rows it carried is not stored
      if (carry) this.carriedRowsFailed(namespace!, carry.rows, error);
      if (committing && error instanceof CommitOutcomeUnknown) {
        broken = error;
        this.log.error({ err: error.cause }, 'postgres: connection lost during COMMIT; outcome unknown');
        throw error;
      }
      try {
        if (!endedOnServer) await client.query('ROLLBACK');
      } catch (rollbackError) {
        // the connection is unusable (dropped mid-transaction): the server rolls back on its own
        broken = rollbackError as Error;
        this.log.error({ err: rollbackError }, 'postgres: rollback failed; connection discarded');
      }
      throw error;
    } finally {
      ended = true;
      granted();
      if (grant && this.locksGranted.get(namespace!) === grant) this.locksGranted.delete(namespace!);
      connection.release(broken ?? undefined);
    }
  }

  /**
   * Sends statements in one round trip and answers the last one's result: the pool's connections
   * are in pg's pipeline mode, so queries issued together go out without waiting for each other's
   * answers (each with its own Sync; the server runs them in order). A failure says which statement
   * failed first (`failedAt`); the ones after it fail as "current transaction is aborted".
   */
  private async send(client: pg.PoolClient, statements: readonly Statement[]): Promise<StatementResult> {
    // pg writes each query (Bind, Describe, Execute, Sync) with a socket write of its own: corked
    // until the end of this tick, the whole round trip is one write (one syscall, one wake-up of the
    // server) instead of one per statement, and so are sends issued in the same tick (a batch's
    // reads, issued together, go out with BEGIN and the locks in one write)
    const socket = (client as unknown as pg.Client).connection?.stream;
    socket?.cork();
    let sent: Promise<pg.QueryResult>[];
    try {
      sent = statements.map((statement) => {
        const answer = client.query({ name: statement.name, text: statement.text, values: statement.values });
        return statement.onRows ? answer.then((result) => (statement.onRows!(result.rows), result)) : answer;
      });
    } finally {
      if (socket) process.nextTick(() => socket.uncork());
    }
    const settled = await Promise.allSettled(sent);
    const failedAt = settled.findIndex((outcome) => outcome.status === 'rejected');
    if (failedAt >= 0) throw Object.assign((settled[failedAt] as PromiseRejectedResult).reason as Error, { failedAt });
    const last = (settled[settled.length - 1] as PromiseFulfilledResult<pg.QueryResult>).value;
    return { rows: last.rows, rowCount: last.rowCount ?? 0, command: last.command };
  }

  /**
   * Holds a session-level advisory lock (on a connection of its own) while fn runs; answers
   * `{ ran: false }` at once when another session holds it. If the connection drops while fn runs,
   * the server frees the lock: fn is expected to be safe if, rarely, another process then starts it too.
   */
  async tryExclusive<T>(name: string, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    const [classId, objectId] = exclusiveLockKey(name);
    const client = await this.checkout();
    let broken: Error | undefined;
    try {
      const acquired = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [classId, objectId]);
      if (!acquired.rows[0]?.ok) return { ran: false };
      try {
        return { ran: true, value: await fn() };
      } finally {
        try {
          await client.query('SELECT pg_advisory_unlock($1, $2)', [classId, objectId]);
        } catch (error) {
          // closing the connection frees the lock
          broken = error as Error;
          this.log.error({ err: error, lock: name }, 'postgres: advisory unlock failed; connection discarded');
        }
      }
    } finally {
      client.release(broken ?? undefined);
    }
  }

  async schemaVersion(): Promise<number> {
    return currentVersion(this.pool);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /**
   * A transaction's Sql, bound to its connection; unusable once the transaction ended.
   *
   * Savepoints cost round trips while the cluster's write lock is held. By default ('as-needed')
   * none is sent: a write that fails before changing anything has nothing to undo, and one that
   * fails after (rare: a broken connection, a bug) marks the transaction `poisoned`, so it is rolled
   * back whole and the caller runs it again with real savepoints ('always': `SAVEPOINT` before a
   * savepoint's first statement, sent together with the `RELEASE` of the ones that ended since, in one
   * round trip). A statement that fails where no savepoint can absorb it poisons it too: PostgreSQL
   * has aborted the transaction. Savepoints still open at COMMIT are released by it.
   */
  private txOn(client: pg.PoolClient, ended: () => boolean, savepoints: 'as-needed' | 'always', namespace: string | undefined, rowCache: Map<string, unknown>, carried: boolean, firstSend: Promise<void> | undefined): PgTx {
    let counter = 0;
    /** Savepoints entered and not yet left, outermost first; `open` once SAVEPOINT was sent. */
    const stack: { name: string; open: boolean; wrote: boolean }[] = [];
    /** Savepoints left successfully whose RELEASE has not been sent yet. */
    let toRelease: string[] = [];
    const tx: PgTx = {
      dialect: 'postgres',
      namespace,
      carried,
      deferred: [],
      commitHooks: new Map(),
      wrote: false,
      // its lock keeps every other writer of these rows out while it runs (and the claim checks carried ones)
      rowCache,
      beforeCommit: (key, fn) => void tx.commitHooks.set(key, fn),
      get: async <Row>(query: Query, params?: Params) => (await execute(query, params)).rows[0] as Row | undefined,
      all: async <Row>(query: Query, params?: Params) => (await execute(query, params)).rows as Row[],
      run: async (query, params) => ({ changes: (await execute(query, params)).rowCount }),
      write: async (query, params) => {
        check();
        const one = this.statement(oneRow(query));
        for (const frame of stack) frame.wrote = true;
        tx.wrote = true;
        // 'always' (finding which write fails): each statement on its own, as before
        if (savepoints === 'always') return void (await execute(oneRow(query), params));
        if (typeof query === 'object' && 'merge' in query) return deferRows(tx.deferred, this.compile, query, params);
        tx.deferred.push({ name: one.name, text: one.text, values: bindValues(one, params) });
      },
      savepoint: async <T>(fn: () => Promise<T>): Promise<T> => {
        const frame = { name: `sp${++counter}`, open: false, wrote: false };
        stack.push(frame);
        try {
          const value = await fn();
          // released with the next SAVEPOINT sent, or by COMMIT; an inner one goes with its outer
          if (frame.open) toRelease.push(frame.name);
          return value;
        } catch (error) {
          // the rows it cached may be the ones rolled back
          if (frame.wrote) rowCache.clear();
          if (frame.open) {
            // rolls back and ends every savepoint opened inside this one too
            await client.query(`ROLLBACK TO SAVEPOINT ${frame.name}; RELEASE SAVEPOINT ${frame.name}`);
            toRelease = toRelease.filter((name) => Number(name.slice(2)) < Number(frame.name.slice(2)));
            // a statement that failed inside this savepoint aborted nothing beyond it
            if (tx.poisoned && stack.length - 1 <= tx.poisoned.depth) tx.poisoned = undefined;
          } else if (frame.wrote) {
            tx.poisoned ??= { cause: error, depth: -1 };
          }
          throw error;
        } finally {
          stack.pop();
        }
      },
    };
    const check = () => {
      if (ended()) throw new Error('transaction already ended: use the store, not a finished tx');
      if (tx.poisoned) throw poisonError(tx.poisoned.cause);
    };
    const openPending = async () => {
      const pending = stack.filter((frame) => !frame.open);
      if (pending.length === 0) return;
      const statements = [...toRelease.map((name) => `RELEASE SAVEPOINT ${name}`), ...pending.map((frame) => `SAVEPOINT ${frame.name}`)];
      toRelease = [];
      await client.query(statements.join('; '));
      for (const frame of pending) frame.open = true;
    };
    const execute = async (query: Query, params?: Params): Promise<StatementResult> => {
      check();
      if (savepoints === 'always' && stack.length > 0) await openPending();
      const statement = this.statement(query);
      // statements issued together resume in order, the first with BEGIN and the locks
      if (firstSend) await firstSend;
      const deferred = takeDeferred(tx.deferred, this.compile);
      try {
        // the writes deferred so far go out with this statement, in one round trip
        return await this.send(client, [...deferred, { name: statement.name, text: statement.text, values: bindValues(statement, params) }]);
      } catch (error) {
        const failedAt = (error as { failedAt?: number }).failedAt ?? deferred.length;
        // a statement sent before this one, in a round trip of its own issued with it, aborted the
        // transaction (answered first, it poisoned it): this one fails for that one's reason
        if (isAborted(error) && tx.poisoned && !isAborted(tx.poisoned.cause)) throw poisonError(tx.poisoned.cause);
        // a deferred write failed (an earlier write's): no blame on this one; run the batch again with real savepoints
        // (rows carried that were not current: run it again on rows read afresh)
        const blame = isStale(error) ? new CarriedRowsStale(error) : failedAt < deferred.length ? new SavepointsNeeded(error) : error;
        // PostgreSQL aborted the transaction: only a ROLLBACK TO an open savepoint around here saves it
        const depth = failedAt < deferred.length ? -1 : stack.findLastIndex((frame) => frame.open);
        // the failure that aborted it, not one of the statements aborted after it (answered out of order)
        if (!tx.poisoned || (isAborted(tx.poisoned.cause) && !isAborted(error))) tx.poisoned = { cause: error, depth };
        throw blame;
      } finally {
        if (!statement.readOnly) {
          for (const frame of stack) frame.wrote = true;
          tx.wrote = true;
        }
      }
    };
    return tx;
  }

  /**
   * The rows a namespace's transaction starts from, and its claim: the rows the last transaction
   * left when they can be trusted (carried: the claim expects that transaction), else a new cache.
   */
  private rowsFor(namespace: string, savepoints: 'as-needed' | 'always', mine: string): { rows: CarriedRows; claim: WriterClaim } {
    const kept = this.carriedRows.get(namespace);
    const carries = this.carryRows && savepoints === 'as-needed';
    if (carries && kept && kept.valid && kept.allWriter !== undefined && kept.rows.size <= MAX_CARRIED_ROWS && !((this.contendedUntil.get(namespace) ?? 0) > Date.now())) {
      const expected = { writer: kept.writer, allWriter: kept.allWriter };
      kept.writer = mine;
      return { rows: kept, claim: { mine, expected, answered: () => undefined } };
    }
    const rows: CarriedRows = { rows: new Map(), writer: mine, allWriter: undefined, valid: carries };
    this.carriedRows.set(namespace, rows);
    // the all-namespaces writer its claim found: the next transaction may carry these rows from then on
    return { rows, claim: { mine, answered: (allWriter) => void (rows.writer === mine && (rows.allWriter = allWriter)) } };
  }

  /** A transaction on these rows failed: what it changed in them is not stored, so the next one reads afresh. */
  private carriedRowsFailed(namespace: string, rows: CarriedRows, error: unknown): void {
    rows.valid = false;
    const cause = error instanceof CarriedRowsStale ? error.cause : undefined;
    // the claim names the writer it found: one of this process's is the transaction before, not yet
    // committed (this one's lock came first) or failed, not another process
    const anotherProcess = cause instanceof pg.DatabaseError && cause.code === ANOTHER_WRITER && !cause.detail?.startsWith(`${this.writerPrefix}:`);
    if (anotherProcess) this.contendedUntil.set(namespace, Date.now() + CONTENDED_MS);
  }

  /** Every namespace's rows read afresh by its next transaction. */
  private forgetCarriedRows(): void {
    for (const rows of this.carriedRows.values()) rows.valid = false;
  }

  private execute<Row>(runner: pg.Pool | pg.PoolClient, query: Query, params?: Params): Promise<pg.QueryResult<Row & pg.QueryResultRow>> {
    const statement = this.statement(query);
    return runner.query<Row & pg.QueryResultRow>({ name: statement.name, text: statement.text, values: bindValues(statement, params) });
  }

  /** The query rewritten to `$n` (once per text) and the prepared statement name for it. */
  /** statement() as a function the deferred writes compile with. */
  private readonly compile = (query: Query) => this.statement(query);

  private statement(query: Query): Positional & { name: string; readOnly: boolean } {
    const sql = queryText(query, 'postgres');
    let statement = this.positional.get(sql);
    if (!statement) {
      statement = { ...toPositional(sql), name: `hub_${this.positional.size + 1}`, readOnly: /^\s*SELECT\b/i.test(sql) };
      this.positional.set(sql, statement);
    }
    return statement;
  }

  /**
   * A pooled connection for a transaction or a lock. While checked out, pg-pool does not listen for
   * its errors; a connection that drops between two queries would then crash the process with an
   * unhandled 'error' event. The listener logs it; the next query on it fails and the caller discards it.
   */
  private async checkout(): Promise<pg.PoolClient> {
    const client = await this.pool.connect();
    const onError = (error: Error) => this.log.error({ err: error }, 'postgres: connection failed while in use');
    client.on('error', onError);
    const release = client.release.bind(client);
    client.release = (destroy?: Error | boolean) => {
      client.removeListener('error', onError);
      release(destroy);
    };
    return client;
  }

  /** A pooled connection for one transaction, as NamespaceConnections answers one. */
  private async pooled(): Promise<{ client: pg.PoolClient; shared: false; release: (broken?: Error) => void }> {
    const client = await this.checkout();
    return { client, shared: false, release: (broken) => client.release(broken) };
  }

  private async withClient<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.checkout();
    let broken: Error | undefined;
    try {
      return await fn(client);
    } catch (error) {
      broken = error as Error;
      throw error;
    } finally {
      client.release(broken);
    }
  }
}
