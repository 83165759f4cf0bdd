/**
 * A PostgreSQL transaction's deferred writes (Sql.write): statements whose answer nobody reads,
 * held until the transaction's next round trip, and the rows of RowsWrites merged on the way
 * (sql.ts, RowsWrite.merge), so a batch of many events sends a few statements per kind, not one per
 * write. Patches (sql.ts, RowPatch) fold per row: a session's activity, presence, attention and
 * current turn in one UPDATE of its row.
 */
import { foldedPatchText, oneRow, touchOverlap, type Params, type PatchColumn, type Query, type RowPatch, type RowsWrite } from '../sql.js';
import { bindValues, type Positional } from './named-params.js';

/** One statement of a transaction: a named prepared statement and its values. */
export interface Statement {
  name: string;
  text: string;
  values: unknown[];
  /** Its rows, as soon as it is answered (a statement sent with others whose answer someone reads). */
  onRows?: (rows: { [column: string]: unknown }[]) => void;
}

/** Rows of one RowsWrite deferred until the same round trip: one statement for all of them. */
interface DeferredRows {
  write: RowsWrite;
  /** Each row's params, and its values in the order of `many`'s parameters (bound when written: a missing one fails there). */
  rows: { params: Params | undefined; values: unknown[] }[];
  /** The rows' keys (`merge: { key }`). */
  keys: Set<unknown>;
}

/** Patches of one table deferred until the same round trip, folded: each row's columns, each its last value. */
interface DeferredPatches {
  table: string;
  key: PatchColumn;
  byKey: Map<unknown, Map<string, unknown>>;
  /** Each column set so far, by name. */
  columns: Map<string, PatchColumn>;
  /** `table.column` of those columns: what a later write moving up past this entry must not touch. */
  touches: string[];
}

export type Deferred = Statement | DeferredRows | DeferredPatches;

/** A query compiled for PostgreSQL: its positional text and prepared statement's name. */
export type Compile = (query: Query) => Positional & { name: string };

/**
 * Defers one write of a RowsWrite: into the entry of the rows already deferred with it when its
 * `merge` allows (sql.ts), a patch into its row's fold, else as a new entry at the end.
 */
export function deferRows(deferred: Deferred[], compile: Compile, write: RowsWrite, params: Params | undefined): void {
  if (write.patch) return deferPatch(deferred, write.patch, params);
  const row = { params, values: write.many === undefined ? [] : bindValues(compile(write.many), params) };
  const key = typeof write.merge === 'object' && 'key' in write.merge ? (params as Record<string, unknown> | undefined)?.[write.merge.key] : undefined;
  const joined = write.many === undefined ? undefined : joinable(deferred, write, key);
  if (joined) {
    joined.rows.push(row);
    joined.keys.add(key);
    return;
  }
  deferred.push({ write, rows: [row], keys: new Set([key]) });
}

const isPatches = (entry: Deferred): entry is DeferredPatches => 'byKey' in entry;
const isRows = (entry: Deferred): entry is DeferredRows => 'rows' in entry;

/**
 * Whether a write touching `touches` may move up past `entry`: appends touch nothing, `touches`
 * writes and patches what they name; plain statements and `{ key }` writes everything.
 */
function passable(entry: Deferred, touches: readonly string[]): boolean {
  if (isPatches(entry)) return !touchOverlap(entry.touches, touches);
  if (!isRows(entry)) return false;
  const other = entry.write.merge;
  return other === 'append' || ('touches' in other && !touchOverlap(other.touches, touches));
}

/** The deferred rows of `write` that a new row may join (sql.ts, RowsWrite.merge), if any. */
function joinable(deferred: Deferred[], write: RowsWrite, key: unknown): DeferredRows | undefined {
  const { merge } = write;
  if (merge === 'append') return deferred.find((entry): entry is DeferredRows => isRows(entry) && entry.write === write);
  if ('key' in merge) {
    // the last deferred entry that is not an append, if its key is new there
    const last = deferred.findLast((entry) => !(isRows(entry) && entry.write.merge === 'append'));
    return last && isRows(last) && last.write === write && !last.keys.has(key) ? last : undefined;
  }
  for (let i = deferred.length - 1; i >= 0; i--) {
    const entry = deferred[i]!;
    if (isRows(entry) && entry.write === write) return entry;
    if (!passable(entry, merge.touches)) return undefined;
  }
  return undefined;
}

function deferPatch(deferred: Deferred[], patch: RowPatch, params: Params | undefined): void {
  // bound now, as any write's values: a missing parameter fails here, not at the round trip
  const [key, ...values] = bindValues({ text: `a patch of ${patch.table}`, names: [patch.key[1], ...patch.columns.map(([, param]) => param)] }, params);
  const touches = patch.columns.map(([column]) => `${patch.table}.${column}`);
  let into: DeferredPatches | undefined;
  for (let i = deferred.length - 1; i >= 0 && !into; i--) {
    const entry = deferred[i]!;
    if (isPatches(entry) && entry.table === patch.table && entry.key[0] === patch.key[0]) into = entry;
    else if (!passable(entry, touches)) break;
  }
  if (!into) deferred.push((into = { table: patch.table, key: patch.key, byKey: new Map(), columns: new Map(), touches: [] }));
  let row = into.byKey.get(key);
  if (!row) into.byKey.set(key, (row = new Map()));
  for (const [i, column] of patch.columns.entries()) {
    row.set(column[0], values[i]);
    if (!into.columns.has(column[0])) {
      into.columns.set(column[0], column);
      into.touches.push(touches[i]!);
    }
  }
}

/** The deferred writes as statements to send, emptying the list: one per RowsWrite's rows, one per set of columns of a table's patches. */
export function takeDeferred(deferred: Deferred[], compile: Compile): Statement[] {
  return deferred.splice(0).flatMap((entry): Statement[] => {
    if (isPatches(entry)) return patchStatements(entry, compile);
    if (!isRows(entry)) return [entry];
    if (entry.rows.length === 1) {
      const one = compile(oneRow(entry.write));
      return [{ name: one.name, text: one.text, values: bindValues(one, entry.rows[0]!.params) }];
    }
    const many = compile(entry.write.many!);
    return [{ name: many.name, text: many.text, values: many.names.map((_, i) => entry.rows.map((row) => row.values[i])) }];
  });
}

/** Folded patches: the rows setting the same columns in one UPDATE (columns in name order: one prepared statement a set). */
function patchStatements(entry: DeferredPatches, compile: Compile): Statement[] {
  const bySet = new Map<string, { columns: PatchColumn[]; rows: [key: unknown, values: Map<string, unknown>][] }>();
  for (const [key, values] of entry.byKey) {
    const names = [...values.keys()].sort();
    const set = names.join(',');
    let group = bySet.get(set);
    if (!group) bySet.set(set, (group = { columns: names.map((name) => entry.columns.get(name)!), rows: [] }));
    group.rows.push([key, values]);
  }
  return [...bySet.values()].map(({ columns, rows }) => {
    const statement = compile(foldedPatchText(entry.table, entry.key, columns, rows.length === 1 ? 'one' : 'many'));
    // @key, then @v0… in the order the text names them
    const valueOf = (name: string, [key, values]: (typeof rows)[number]) => (name === 'key' ? key : values.get(columns[Number(name.slice(1))]![0]));
    const values = statement.names.map((name) => (rows.length === 1 ? valueOf(name, rows[0]!) : rows.map((row) => valueOf(name, row))));
    return { name: statement.name, text: statement.text, values };
  });
}
