import { randomUUID } from 'node:crypto';
import type { UpdateBody, UpdateEvent } from '../../shared/protocol/broadcast.js';
import type { Sql, Tx } from './sql.js';

// UPDATE … RETURNING, with an INSERT for a namespace's first event: an upsert with RETURNING costs
// several times more per write (measured: ~12 µs against ~2.5 µs)
const NEXT_SEQ = `UPDATE namespaces SET last_seq = last_seq + 1 WHERE name = @namespace RETURNING last_seq AS seq`;
const FIRST_SEQ = `INSERT INTO namespaces (name, last_seq) VALUES (@namespace, 1) RETURNING last_seq AS seq`;
const INSERT_EVENT = `
  INSERT INTO events (namespace, seq, id, sid, created_at, body) VALUES (@namespace, @seq, @id, @sid, @createdAt, @body)`;
const SELECT_NAMESPACE = `SELECT last_seq AS "lastSeq", pruned_through AS "prunedThrough" FROM namespaces WHERE name = @namespace`;
const SELECT_SINCE = `SELECT id, seq, sid, created_at AS "createdAt", body FROM events WHERE namespace = @namespace AND seq > @since ORDER BY seq`;
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
  SELECT id, seq, sid, created_at AS "createdAt", body FROM events WHERE namespace = @namespace AND seq > @since ORDER BY seq LIMIT @limit`;

/**
 * PostgreSQL: the next seq and the event row in one statement, so one round trip while the
 * cluster's write lock is held (SQLite has no data-modifying CTEs, and no round trips to save).
 */
const APPEND_EVENT_PG = `
  WITH next AS (
    INSERT INTO namespaces AS n (name, last_seq) VALUES (@namespace, 1)
    ON CONFLICT (name) DO UPDATE SET last_seq = n.last_seq + 1
    RETURNING last_seq)
  INSERT INTO events (namespace, seq, id, sid, created_at, body)
  SELECT @namespace, last_seq, @id, @sid, @createdAt, @body FROM next
  RETURNING seq`;

/** Appends one event with the namespace's next seq. Call inside the write's transaction. */
export async function appendEvent(sql: Sql, input: { namespace: string; sid: string; body: UpdateBody; now: number }): Promise<UpdateEvent> {
  const id = randomUUID();
  const row = { namespace: input.namespace, id, sid: input.sid, createdAt: input.now, body: JSON.stringify(input.body) };
  let seq: number;
  if (sql.dialect === 'postgres') {
    seq = (await sql.get<{ seq: number }>(APPEND_EVENT_PG, row))!.seq;
  } else {
    const next = (await sql.get<{ seq: number }>(NEXT_SEQ, { namespace: input.namespace })) ?? (await sql.get<{ seq: number }>(FIRST_SEQ, { namespace: input.namespace }));
    seq = next!.seq;
    await sql.run(INSERT_EVENT, { ...row, seq });
  }
  return { id, seq, createdAt: input.now, body: input.body };
}

export async function namespaceSeqState(sql: Sql, namespace: string): Promise<{ lastSeq: number; prunedThrough: number }> {
  return (await sql.get(SELECT_NAMESPACE, { namespace }) as { lastSeq: number; prunedThrough: number } | undefined) ?? {
    lastSeq: 0,
    prunedThrough: 0,
  };
}

/** Kept events after `since`, in seq order, optionally only for some sessions. */
export async function readEventsSince(sql: Sql, input: { namespace: string; since: number; sids?: ReadonlySet<string> }): Promise<UpdateEvent[]> {
  const rows = await sql.all(SELECT_SINCE, { namespace: input.namespace, since: input.since }) as {
    id: string;
    seq: number;
    sid: string;
    createdAt: number;
    body: string;
  }[];
  const events: UpdateEvent[] = [];
  for (const row of rows) {
    if (input.sids && !input.sids.has(row.sid)) continue;
    events.push({ id: row.id, seq: row.seq, createdAt: row.createdAt, body: JSON.parse(row.body) as UpdateBody });
  }
  return events;
}

/** At most `limit` kept events after `since`, in seq order, with their sid (webhook delivery pages through them). */
export async function readEventPageAfter(
  sql: Sql,
  input: { namespace: string; since: number; limit: number },
): Promise<(UpdateEvent & { sid: string })[]> {
  const rows = await sql.all(SELECT_PAGE_AFTER, input) as { id: string; seq: number; sid: string; createdAt: number; body: string }[];
  return rows.map((row) => ({ id: row.id, seq: row.seq, sid: row.sid, createdAt: row.createdAt, body: JSON.parse(row.body) as UpdateBody }));
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
