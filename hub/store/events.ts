import { randomUUID } from 'node:crypto';
import type { UpdateBody, UpdateEvent } from '../../shared/protocol/broadcast.js';
import type { JsonObject } from '../../shared/protocol/json.js';
import type { RowsWrite, Sql, Tx } from './sql.js';

/*
 * A transaction keeps each namespace's last seq in memory (in `rowCache`, emptied on any rollback
 * and, on SQLite, when another connection committed) and writes it once, before COMMIT
 * (`beforeCommit`; on PostgreSQL the event rows' statement writes it, see INSERT_EVENT). Nothing
 * else assigns the namespace's seqs meanwhile: on SQLite one process owns the file (hub.lock); on
 * PostgreSQL the transaction holds the namespace's write lock (or the all-namespaces one), which
 * every transaction that appends events takes first.
 * Read back, it is the larger of the stored counter and the log's last seq, so it is right even
 * after the cache was emptied mid-transaction; the counter and the events commit together, so a
 * restart never reuses a seq.
 */
const SEQ_NOW = {
  sqlite: `
  SELECT MAX(last_seq, IFNULL((SELECT MAX(seq) FROM events WHERE namespace = @namespace), 0)) AS seq
  FROM namespaces WHERE name = @namespace`,
  postgres: `
  SELECT GREATEST(last_seq, COALESCE((SELECT MAX(seq) FROM events WHERE namespace = @namespace), 0)) AS seq
  FROM namespaces WHERE name = @namespace`,
};
const NEW_NAMESPACE = `INSERT INTO namespaces (name, last_seq) VALUES (@namespace, 0)`;
const STORE_SEQ = {
  sqlite: `UPDATE namespaces SET last_seq = MAX(last_seq, @seq) WHERE name = @namespace`,
  postgres: `UPDATE namespaces SET last_seq = GREATEST(last_seq, @seq) WHERE name = @namespace`,
};
/**
 * `metadata_version` (migration 012): the body's `metadata.value` is the history row of that
 * version (sid, version), stored as null in the event row instead of a second copy of the document.
 * On PostgreSQL the same statement raises the namespace's counter to the rows' last seq (one
 * statement per batch fewer than a separate STORE_SEQ before COMMIT); the counter and the rows go
 * together, so a rolled-back savepoint takes both back.
 */
export const INSERT_EVENT: RowsWrite = {
  one: {
    sqlite: `
  INSERT INTO events (namespace, seq, id, sid, created_at, body, metadata_version)
  VALUES (@namespace, @seq, @id, @sid, @createdAt, @body, @metadataVersion)`,
    postgres: `
  WITH e AS (
    INSERT INTO events (namespace, seq, id, sid, created_at, body, metadata_version)
    VALUES (@namespace, @seq, @id, @sid, @createdAt, @body, @metadataVersion)
    RETURNING namespace, seq)
  UPDATE namespaces n SET last_seq = GREATEST(n.last_seq, e.seq) FROM e WHERE n.name = e.namespace`,
  },
  // a batch's events in one statement (PostgreSQL): nothing changes an event row once written
  many: `
  WITH e AS (
    INSERT INTO events (namespace, seq, id, sid, created_at, body, metadata_version)
    SELECT * FROM unnest(CAST(@namespace AS TEXT[]), CAST(@seq AS BIGINT[]), CAST(@id AS TEXT[]), CAST(@sid AS TEXT[]),
      CAST(@createdAt AS BIGINT[]), CAST(@body AS TEXT[]), CAST(@metadataVersion AS BIGINT[]))
    RETURNING namespace, seq)
  UPDATE namespaces n SET last_seq = GREATEST(n.last_seq, m.seq)
  FROM (SELECT namespace, MAX(seq) AS seq FROM e GROUP BY namespace) m
  -- the ANY reaches the counter by key: joined on m alone, PostgreSQL scanned every tenant's row
  WHERE n.name = ANY (CAST(@namespace AS TEXT[])) AND n.name = m.namespace`,
  merge: 'append',
};
const SELECT_NAMESPACE = `SELECT last_seq AS "lastSeq", pruned_through AS "prunedThrough" FROM namespaces WHERE name = @namespace`;
const SELECT_SINCE = `
  SELECT e.id, e.seq, e.sid, e.created_at AS "createdAt", e.body, e.metadata_version AS "metadataVersion", h.metadata
  FROM events e LEFT JOIN metadata_history h ON h.sid = e.sid AND h.version = e.metadata_version
  WHERE e.namespace = @namespace AND e.seq > @since ORDER BY e.seq`;
/**
 * A replay's bounds and events in ONE statement, so one snapshot on both engines (PostgreSQL's READ
 * COMMITTED gives each statement its own): a prune committing meanwhile is either all seen (a gap)
 * or not at all (the events it deletes are still read). No row: the namespace has no events yet.
 */
const SELECT_REPLAY = `
  SELECT n.last_seq AS "lastSeq", n.pruned_through AS "prunedThrough",
    e.id, e.seq, e.sid, e.created_at AS "createdAt", e.body, e.metadata_version AS "metadataVersion", h.metadata
  FROM namespaces n
  LEFT JOIN events e ON e.namespace = n.name AND e.seq > @since
  LEFT JOIN metadata_history h ON h.sid = e.sid AND h.version = e.metadata_version
  WHERE n.name = @namespace ORDER BY e.seq`;
export const SELECT_PRUNABLE_UPTO = `
  SELECT MAX(seq) AS upto FROM events
  WHERE namespace = @namespace AND seq <= @maxSeqByCount AND created_at < @olderThan`;
export const DELETE_UPTO = `DELETE FROM events WHERE namespace = @namespace AND seq <= @upto`;
const SET_PRUNED = {
  sqlite: `UPDATE namespaces SET pruned_through = MAX(pruned_through, @upto) WHERE name = @namespace`,
  postgres: `UPDATE namespaces SET pruned_through = GREATEST(pruned_through, @upto) WHERE name = @namespace`,
};
const SELECT_NAMESPACES = `SELECT name FROM namespaces`;
const SELECT_PAGE_AFTER = `
  SELECT e.id, e.seq, e.sid, e.created_at AS "createdAt", e.body, e.metadata_version AS "metadataVersion", h.metadata
  FROM events e LEFT JOIN metadata_history h ON h.sid = e.sid AND h.version = e.metadata_version
  WHERE e.namespace = @namespace AND e.seq > @since ORDER BY e.seq LIMIT @limit`;

/** An event row as read back: the body text, and the history row it may refer to. */
interface StoredEventRow {
  id: string;
  seq: number;
  sid: string;
  createdAt: number;
  body: string;
  metadataVersion: number | null;
  metadata: string | null;
}

/**
 * PostgreSQL outside a transaction's seq counter (no beforeCommit: not expected, kept safe): the
 * next seq and the event row in one statement (the row lock on the namespace's counter).
 */
const APPEND_EVENT_PG = `
  WITH next AS (
    INSERT INTO namespaces AS n (name, last_seq) VALUES (@namespace, 1)
    ON CONFLICT (name) DO UPDATE SET last_seq = n.last_seq + 1
    RETURNING last_seq)
  INSERT INTO events (namespace, seq, id, sid, created_at, body, metadata_version)
  SELECT @namespace, last_seq, @id, @sid, @createdAt, @body, CAST(@metadataVersion AS BIGINT) FROM next
  RETURNING seq`;

/** A namespace's seq counter while a SQLite transaction runs (see SEQ_NOW). */
interface SeqCounter {
  last: number;
}
const seqKey = (namespace: string) => `seq:${namespace}`;

async function seqCounter(sql: Sql, namespace: string): Promise<SeqCounter> {
  const key = seqKey(namespace);
  let counter = sql.rowCache?.get(key) as SeqCounter | undefined;
  if (counter) return counter;
  let row = await sql.get<{ seq: number }>(SEQ_NOW, { namespace });
  if (!row) {
    await sql.run(NEW_NAMESPACE, { namespace });
    row = { seq: 0 };
  }
  counter = { last: row.seq };
  sql.rowCache?.set(key, counter);
  return counter;
}

/**
 * Reads the namespaces' seq counters into the transaction's rowCache ahead of its first event (a
 * group-committed batch reads them with its other reads, in the same round trip on PostgreSQL).
 */
export async function prefetchSeqCounters(sql: Sql, namespaces: Iterable<string>): Promise<void> {
  if (!sql.beforeCommit) return;
  await Promise.all([...namespaces].map((namespace) => seqCounter(sql, namespace)));
}

/**
 * The event row's body: with `metadataVersion`, the metadata document is left out (null), as the
 * history row of that version holds the same text; `readEventsSince` puts it back.
 */
function bodyText(body: UpdateBody, metadataVersion: number | null): string {
  if (metadataVersion === null || body.t !== 'update-session' || !body.metadata) return JSON.stringify(body);
  return JSON.stringify({ ...body, metadata: { version: body.metadata.version, value: null } });
}

/**
 * Appends one event with the namespace's next seq. Call inside the write's transaction.
 * `metadataVersion`: an `update-session` body whose metadata is that version's history row, written
 * in this transaction (the event row then refers to it instead of repeating the document).
 */
export async function appendEvent(
  sql: Sql,
  input: { namespace: string; sid: string; body: UpdateBody; now: number; metadataVersion?: number },
): Promise<UpdateEvent> {
  const id = randomUUID();
  const metadataVersion = input.metadataVersion ?? null;
  const row = { namespace: input.namespace, seq: 0, id, sid: input.sid, createdAt: input.now, body: bodyText(input.body, metadataVersion), metadataVersion };
  let seq: number;
  const locked = (sql as { namespace?: string }).namespace;
  if (locked !== undefined && locked !== input.namespace) {
    throw new Error(`a transaction of namespace ${locked} cannot append an event of namespace ${input.namespace}`);
  }
  if (!sql.beforeCommit && sql.dialect === 'postgres') {
    // APPEND_EVENT_PG has no @seq: the named-parameter binding takes only the names a query uses
    seq = (await sql.get<{ seq: number }>(APPEND_EVENT_PG, row))!.seq;
  } else {
    const counter = await seqCounter(sql, input.namespace);
    seq = row.seq = counter.last + 1;
    await sql.write(INSERT_EVENT, row);
    counter.last = seq;
    // PostgreSQL: INSERT_EVENT raised the counter with the row
    if (sql.dialect === 'postgres') return { id, seq, createdAt: input.now, body: input.body };
    if (sql.beforeCommit) sql.beforeCommit(seqKey(input.namespace), () => storeSeq(sql, input.namespace));
    else await storeSeq(sql, input.namespace);
  }
  return { id, seq, createdAt: input.now, body: input.body };
}

/** Writes a namespace's counter: the one in memory, or, if that was emptied, the log's last seq. */
async function storeSeq(sql: Sql, namespace: string): Promise<void> {
  const seq = (sql.rowCache?.get(seqKey(namespace)) as SeqCounter | undefined)?.last ?? (await sql.get<{ seq: number }>(SEQ_NOW, { namespace }))!.seq;
  await sql.write(STORE_SEQ, { namespace, seq });
}

export async function namespaceSeqState(sql: Sql, namespace: string): Promise<{ lastSeq: number; prunedThrough: number }> {
  const state = (await sql.get(SELECT_NAMESPACE, { namespace }) as { lastSeq: number; prunedThrough: number } | undefined) ?? {
    lastSeq: 0,
    prunedThrough: 0,
  };
  // inside a SQLite transaction that appended events, the counter in memory is ahead of the row
  const counter = sql.rowCache?.get(seqKey(namespace)) as SeqCounter | undefined;
  return counter ? { ...state, lastSeq: Math.max(state.lastSeq, counter.last) } : state;
}

/** Kept events after `since`, in seq order, optionally only for some sessions. */
export async function readEventsSince(sql: Sql, input: { namespace: string; since: number; sids?: ReadonlySet<string> }): Promise<UpdateEvent[]> {
  const rows = await sql.all(SELECT_SINCE, { namespace: input.namespace, since: input.since }) as StoredEventRow[];
  const events: UpdateEvent[] = [];
  for (const row of rows) {
    if (input.sids && !input.sids.has(row.sid)) continue;
    events.push({ id: row.id, seq: row.seq, createdAt: row.createdAt, body: storedBody(row) });
  }
  return events;
}

/**
 * What a client that saw up to `since` missed, read in one statement (see SELECT_REPLAY): the
 * namespace's seq state and, in seq order, the kept events after `since` (optionally only some sessions').
 */
export async function readReplay(
  sql: Sql,
  input: { namespace: string; since: number; sids?: ReadonlySet<string> },
): Promise<{ lastSeq: number; prunedThrough: number; events: UpdateEvent[] }> {
  const rows = (await sql.all(SELECT_REPLAY, { namespace: input.namespace, since: input.since })) as (Partial<StoredEventRow> & { lastSeq: number; prunedThrough: number })[];
  const events: UpdateEvent[] = [];
  for (const row of rows) {
    if (row.seq === null || row.seq === undefined) continue;
    if (input.sids && !input.sids.has(row.sid!)) continue;
    events.push({ id: row.id!, seq: row.seq, createdAt: row.createdAt!, body: storedBody(row as StoredEventRow) });
  }
  const state = rows[0] ?? { lastSeq: 0, prunedThrough: 0 };
  // inside a SQLite transaction that appended events, the counter in memory is ahead of the row
  const counter = sql.rowCache?.get(seqKey(input.namespace)) as SeqCounter | undefined;
  return { lastSeq: Math.max(state.lastSeq, counter?.last ?? 0), prunedThrough: state.prunedThrough, events };
}

/** At most `limit` kept events after `since`, in seq order, with their sid (webhook delivery pages through them). */
export async function readEventPageAfter(
  sql: Sql,
  input: { namespace: string; since: number; limit: number },
): Promise<(UpdateEvent & { sid: string })[]> {
  const rows = await sql.all(SELECT_PAGE_AFTER, input) as StoredEventRow[];
  return rows.map((row) => ({ id: row.id, seq: row.seq, sid: row.sid, createdAt: row.createdAt, body: storedBody(row) }));
}

/** An event row's body as it was published: the metadata document put back from its history row. */
function storedBody(row: StoredEventRow): UpdateBody {
  const body = JSON.parse(row.body) as UpdateBody;
  if (row.metadataVersion === null) return body;
  if (row.metadata === null || body.t !== 'update-session' || !body.metadata) {
    throw new Error(`event ${row.seq} refers to metadata version ${row.metadataVersion} of session ${row.sid}, which has no history row`);
  }
  body.metadata.value = JSON.parse(row.metadata) as JsonObject;
  return body;
}

/**
 * Drops events that are both beyond the newest `keepCount` and older than `keepMs`, so at least
 * that many and at least that long are always kept. Returns how many went. Run it in a
 * transaction: the deletion and the namespace's pruned_through move together.
 */
export async function pruneEvents(sql: Tx, input: { keepCount: number; keepMs: number; now: number }): Promise<number> {
  let removed = 0;
  for (const { name } of await sql.all(SELECT_NAMESPACES) as { name: string }[]) {
    const { lastSeq } = await namespaceSeqState(sql, name);
    const { upto } = await sql.get(SELECT_PRUNABLE_UPTO, {
      namespace: name,
      maxSeqByCount: lastSeq - input.keepCount,
      olderThan: input.now - input.keepMs,
    }) as { upto: number | null };
    if (upto === null) continue;
    removed += (await sql.run(DELETE_UPTO, { namespace: name, upto })).changes;
    await sql.run(SET_PRUNED, { namespace: name, upto });
  }
  return removed;
}
