/**
 * The one interface between the hub and its database engine. Store modules (this folder) hold every
 * query, written once with named parameters (`@name`); an engine runs them:
 * - `sqlite/` on better-sqlite3 (the embedded default, one process);
 * - `postgres/` on `pg` (several hub processes sharing one database).
 * A query whose text must differ between engines is written as `{ sqlite, postgres }`.
 */

export type Dialect = 'sqlite' | 'postgres';

/** A query's text: the same for both engines, or one text per engine. */
export type Query = string | { readonly sqlite: string; readonly postgres: string };

/** Named parameters, by the names the query uses after `@`. */
export type Params = object;

/**
 * A write (`Sql.write`) that PostgreSQL may send as one statement for many rows: the rows that
 * several writes of a batch defer until the same round trip. Each `@name` of `many` binds the array
 * of the rows' `name` values, in the order they were written (`unnest(CAST(@name AS TEXT[]), …)`).
 * `merge` says which rows may go together without changing what the transaction does:
 * - 'append': inserts of rows no other statement of the transaction changes (an event, a request
 *   id): every row deferred until the round trip goes in the statement, sent where the first was;
 * - `{ key }`: changes to the row named by the parameter `key`: rows of writes deferred one after
 *   the other (only 'append' rows between them) go together while their keys differ;
 * - `{ touches }`: the columns (`table.column`) or whole tables (`table`) the statement reads or
 *   writes: its rows join the same write's rows deferred earlier when no statement deferred since
 *   touches any of them (plain statements and `{ key }` writes touch everything; appends nothing),
 *   and `many` applies rows of the same key as they would apply one after the other. Without
 *   `many`, rows never go together, but other writes' rows may pass them.
 * With one row, and everywhere but a PostgreSQL transaction's deferred writes, `one` runs as any query.
 */
export interface RowsWrite {
  readonly one: Query;
  readonly many?: string;
  readonly merge: 'append' | { readonly key: string } | { readonly touches: readonly string[] };
  /** Set by patchWrite: its rows fold with other patches of the table instead of `many`. */
  readonly patch?: RowPatch;
}

/**
 * A write that only sets columns of one row to values it carries, reading none. In a PostgreSQL
 * transaction's deferred writes the patches of a table fold, row by row, into one UPDATE that sets
 * each column its last value, wherever the `touches` rule lets a later patch move up to an earlier
 * one: a batch writes a session's row once (one row version, one set of index entries), not once
 * per kind of change (its activity, presence, attention, current turn).
 */
export interface RowPatch {
  readonly table: string;
  /** The row's key column. */
  readonly key: PatchColumn;
  readonly columns: readonly PatchColumn[];
}
/** A column, the parameter that carries its value, and its PostgreSQL type. */
export type PatchColumn = readonly [column: string, param: string, type: string];

/** The write of a patch: `one` sets its columns on its row; `touches` are those columns. */
export function patchWrite(patch: RowPatch): RowsWrite & { readonly patch: RowPatch } {
  return {
    one: `UPDATE ${patch.table} SET ${patch.columns.map(([column, param]) => `${column} = @${param}`).join(', ')} WHERE ${patch.key[0]} = @${patch.key[1]}`,
    merge: { touches: patch.columns.map(([column]) => `${patch.table}.${column}`) },
    patch,
  };
}

/**
 * The UPDATE (PostgreSQL) that writes folded patches of `table`, every row setting `columns`: the
 * key bound as `@key`, the columns as `@v0`, `@v1`…; arrays of them for `many` rows (keys distinct).
 */
export function foldedPatchText(table: string, key: PatchColumn, columns: readonly PatchColumn[], rows: 'one' | 'many'): string {
  if (rows === 'one') return `UPDATE ${table} SET ${columns.map(([column], i) => `${column} = @v${i}`).join(', ')} WHERE ${key[0]} = @key`;
  const arrays = [`CAST(@key AS ${key[2]}[])`, ...columns.map(([, , type], i) => `CAST(@v${i} AS ${type}[])`)].join(', ');
  const names = ['key', ...columns.map((_, i) => `v${i}`)].join(', ');
  return `
  UPDATE ${table} t SET ${columns.map(([column], i) => `${column} = r.v${i}`).join(', ')}
  FROM unnest(${arrays}) AS r(${names})
  WHERE t.${key[0]} = ANY (CAST(@key AS ${key[2]}[])) AND t.${key[0]} = r.key`;
}

/** The query a write runs for one row. */
export function oneRow(query: Query | RowsWrite): Query {
  return typeof query === 'object' && 'one' in query ? query.one : query;
}

/** Whether two `touches` lists name a column or table in common (a table covers its columns). */
export function touchOverlap(a: readonly string[], b: readonly string[]): boolean {
  const covers = (x: string, y: string) => x === y || y.startsWith(`${x}.`);
  return a.some((x) => b.some((y) => covers(x, y) || covers(y, x)));
}

/** Runs queries: the store outside any transaction, or one transaction. */
export interface Sql {
  readonly dialect: Dialect;
  /** The first row, or undefined. */
  get<Row>(query: Query, params?: Params): Promise<Row | undefined>;
  all<Row>(query: Query, params?: Params): Promise<Row[]>;
  /** Runs a statement; `changes` is the number of rows it inserted, updated or deleted. */
  run(query: Query, params?: Params): Promise<{ changes: number }>;
  /**
   * Runs a statement whose outcome the caller does not read. In a PostgreSQL transaction it may be
   * sent later, in one round trip with the transaction's next statement or its COMMIT; if it fails,
   * that statement (or the COMMIT) fails and the transaction is rolled back whole (SavepointsNeeded).
   * Elsewhere it is `run`.
   */
  write(query: Query | RowsWrite, params?: Params): Promise<void>;
  /**
   * Parsed rows a store module keeps between statements and
   * transactions, keyed by its own choice. The engine empties it whenever it may be stale: any
   * rollback (of a transaction or a savepoint), and another connection's commit (the offline CLI).
   * The module keeps it current on its own writes. Set on transactions only: on SQLite it lasts
   * across transactions (one process owns the file); on PostgreSQL a namespace's transaction may
   * carry it over from the namespace's previous one (`carried`), and is otherwise new.
   */
  readonly rowCache?: Map<string, unknown>;
  /**
   * Set on transactions, PostgreSQL only: the rowCache holds what the namespace's previous transaction in this process left,
   * and the engine checks, with this transaction's first statement, that no other transaction has
   * written the namespace since (else the transaction fails with `CarriedRowsStale`). A batch read
   * then skips what the cache holds, and may take a row it knows only to be new (a request id, a hook
   * event id, a tool use id) as absent without reading it, if it sends a statement that fails with
   * `hub_expect` should the row exist after all (postgres/migrations/024).
   */
  readonly carried?: boolean;
  /**
   * Set on transactions, like rowCache: runs fn once just before COMMIT, after
   * every statement of the transaction; registering a key again replaces its fn. For state a store
   * module keeps in memory during a transaction and writes once (the namespace seq, events.ts).
   */
  readonly beforeCommit?: (key: string, fn: () => Promise<void>) => void;
}

/** One open transaction. */
export interface Tx extends Sql {
  /** The one namespace this transaction may write (TransactionOptions.namespace); undefined: any. */
  readonly namespace?: string;
  /**
   * Runs fn in a savepoint: if fn throws, only fn's changes are rolled back and the error is
   * rethrown; the transaction goes on (group commit runs each write in one). Without
   * `savepoints: 'always'`, an engine may skip the savepoint to save round trips; when fn then fails
   * after changing something (or a statement fails outside any savepoint), the transaction is
   * rolled back and rejects with `SavepointsNeeded`: run it again with `savepoints: 'always'`.
   */
  savepoint<T>(fn: () => Promise<T>): Promise<T>;
}

export interface TransactionOptions {
  /**
   * The one namespace whose rows and events the transaction writes. PostgreSQL then takes that
   * namespace's write lock (shared with other namespaces' writers) instead of the all-namespaces
   * one, so tenants commit in parallel, across processes too; SQLite has one writer anyway.
   */
  namespace?: string;
  /** 'always': every savepoint is a real one (the retry after `SavepointsNeeded`). */
  savepoints?: 'as-needed' | 'always';
  /**
   * PostgreSQL: called once the COMMIT is sent, before its answer. The namespace's next transaction
   * may start then (its lock is granted when this one commits), so its first round trip overlaps
   * this one's last. Never called on SQLite.
   */
  onCommitSent?: () => void;
}

/**
 * The rows a transaction carried over (`Tx.carried`) were not current: another transaction wrote the
 * namespace since, or a row taken as new existed. Nothing was stored; run it again (its rows are then
 * read afresh).
 */
export class CarriedRowsStale extends Error {
  constructor(cause: unknown) {
    super('the rows this transaction kept from the last one were changed by another writer; it was rolled back', { cause });
    this.name = 'CarriedRowsStale';
  }
}

/** The transaction was rolled back because a savepoint it skipped was needed; run it again with `savepoints: 'always'`. */
export class SavepointsNeeded extends Error {
  constructor(cause: unknown) {
    super('a write failed after changing rows in a transaction run without savepoints; it was rolled back whole', { cause });
    this.name = 'SavepointsNeeded';
  }
}

export interface Store extends Sql {
  /**
   * Runs fn in one transaction and commits it, or rolls it back if fn throws. Write transactions
   * are serialized across every hub process sharing the database (SQLite: one writer; PostgreSQL: a
   * transaction-scoped advisory lock), so compare-and-set and the per-namespace seq need no retry.
   * Never call the store itself (rather than `tx`) from inside fn.
   */
  transaction<T>(fn: (tx: Tx) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Runs fn while holding the cluster-wide lock `name`, or answers `{ ran: false }` at once when another
   * process holds it (sweeps run once across the cluster). In-process callers are not excluded.
   */
  tryExclusive<T>(name: string, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }>;
  /** Schema version after migrations. */
  schemaVersion(): Promise<number>;
  close(): Promise<void>;
}

/** The text of a query for a dialect. */
export function queryText(query: Query, dialect: Dialect): string {
  return typeof query === 'string' ? query : query[dialect];
}

/**
 * The connection broke while COMMIT was in flight: the transaction may or may not have committed,
 * and nobody can tell from here. Never answered as "nothing was written": a write with a requestId
 * can be retried safely (applied_requests answers what it produced if it did commit); one without
 * gets version-mismatch if it did.
 */
export class CommitOutcomeUnknown extends Error {
  constructor(cause: unknown) {
    super('the connection to the database broke while COMMIT was in flight: the writes may or may not be stored', { cause });
    this.name = 'CommitOutcomeUnknown';
  }
}
