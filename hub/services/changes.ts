import type { UpdateBody } from '../../shared/protocol/broadcast.js';
import type { TurnSummary } from '../../shared/protocol/session.js';
import type { Db } from '../store/db.js';
import { appendEvent } from '../store/events.js';
import { getSessionAnyNamespace, type StoredSession } from '../store/sessions.js';
import type { HubDeps, OutgoingEvent } from './deps.js';
import { lifecycleOf, presenceOf, toSnapshot } from './snapshots.js';

type Field = 'metadata' | 'agentState' | 'lifecycle' | 'presence';

/**
 * What one unit of work changed. At commit it becomes events, in one transaction with the
 * changes themselves: a `session-created`, the `turn`s in order, then one `update-session` per
 * session carrying every field that changed, with its stored value.
 */
export class ChangeSet {
  private readonly created = new Set<string>();
  /** The changed sessions, as the unit of work left them (callers keep these objects current). */
  private readonly sessions = new Map<string, { session: StoredSession; fields: Set<Field> }>();
  private readonly turns: { namespace: string; turn: TurnSummary }[] = [];

  sessionCreated(sid: string): this {
    this.created.add(sid);
    return this;
  }

  changed(session: StoredSession, ...fields: Field[]): this {
    const entry = this.sessions.get(session.sid);
    if (!entry) this.sessions.set(session.sid, { session, fields: new Set(fields) });
    else {
      entry.session = session;
      for (const field of fields) entry.fields.add(field);
    }
    return this;
  }

  turn(namespace: string, turn: TurnSummary): this {
    this.turns.push({ namespace, turn });
    return this;
  }

  /** Appends the events to the log; call inside the transaction. */
  toEvents(deps: Pick<HubDeps, 'db' | 'clock' | 'config'>, now: number): OutgoingEvent[] {
    const out: OutgoingEvent[] = [];
    const emit = (namespace: string, sid: string, body: UpdateBody) =>
      out.push({ namespace, sid, event: appendEvent(deps.db, { namespace, sid, body, now }) });

    for (const sid of this.created) {
      const session = getSessionAnyNamespace(deps.db, sid)!;
      emit(session.namespace, sid, { t: 'session-created', sid, session: toSnapshot(deps, session) });
    }
    for (const { namespace, turn } of this.turns) emit(namespace, turn.sid, { t: 'turn', sid: turn.sid, turn });
    for (const [sid, { session, fields }] of this.sessions) {
      if (this.created.has(sid) || fields.size === 0) continue;
      emit(session.namespace, sid, {
        t: 'update-session',
        sid,
        metadata: fields.has('metadata') ? { version: session.metadataVersion, value: session.metadata } : null,
        agentState: fields.has('agentState') ? { version: session.agentStateVersion, value: session.agentState } : null,
        lifecycle: fields.has('lifecycle') ? lifecycleOf(session) : null,
        presence: fields.has('presence') ? presenceOf(session) : null,
      });
    }
    return out;
  }
}

const transactionRunners = new WeakMap<Db, (fn: () => unknown) => unknown>();

/** Runs fn in one SQLite transaction (reusing one wrapper per database). */
export function inTransaction<T>(db: Db, fn: () => T): T {
  let run = transactionRunners.get(db);
  if (!run) transactionRunners.set(db, (run = db.transaction((inner: () => unknown) => inner())));
  return run(fn) as T;
}

/**
 * One unit of work: fn's changes and their events commit together or not at all; the events are
 * published only after the commit, to every socket entitled to them but `exceptSocketId`.
 */
export function runWrite<T>(deps: HubDeps, fn: (changes: ChangeSet, now: number) => T, options: { exceptSocketId?: string } = {}): T {
  // writes queued for group commit arrived first: they commit first, so order is kept
  commitQueuedWrites(deps.db);
  const now = deps.clock.now();
  const changes = new ChangeSet();
  const { value, events } = inTransaction(deps.db, () => {
    const value = fn(changes, now);
    return { value, events: changes.toEvents(deps, now) };
  });
  publishCommitted(deps, events, options);
  return value;
}

/**
 * Publishes committed events. A delivery failure must not undo the answer: the write is stored and
 * its events are in the log (a client gets them by replay), so the caller still answers success and
 * the writes after it in a batch still settle.
 */
function publishCommitted(deps: HubDeps, events: OutgoingEvent[], options: { exceptSocketId?: string }): void {
  if (events.length === 0) return;
  try {
    deps.publisher.publish(events, options);
  } catch (error) {
    deps.log.error({ err: error, events: events.length }, 'publishing committed events failed; they stay in the log for replay');
  }
}

interface QueuedWrite {
  fn: (changes: ChangeSet, now: number) => unknown;
  exceptSocketId: string | undefined;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type WriteOutcome = { ok: true; value: unknown; events: OutgoingEvent[] } | { ok: false; error: unknown };

const writeQueues = new Map<Db, { deps: HubDeps; writes: QueuedWrite[] }>();

/**
 * Group commit: the same unit of work as `runWrite`, but writes that arrive together (in one turn
 * of the event loop) commit in ONE SQLite transaction, which is most of a write's cost. Each write
 * runs in its own savepoint, so one that throws is rolled back alone and rejects alone. The promise
 * settles, and the events are published, only after the batch's COMMIT: an acknowledged write is
 * in the WAL, so it survives a crash of the hub process like any other.
 */
export function runWriteBatched<T>(deps: HubDeps, fn: (changes: ChangeSet, now: number) => T, options: { exceptSocketId?: string } = {}): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let queue = writeQueues.get(deps.db);
    if (!queue) {
      writeQueues.set(deps.db, (queue = { deps, writes: [] }));
      // after this turn's I/O callbacks: every write that came in with this one joins the batch
      setImmediate(() => commitQueuedWrites(deps.db));
    }
    queue.writes.push({ fn, exceptSocketId: options.exceptSocketId, resolve: resolve as (value: unknown) => void, reject });
  });
}

/** Runs and commits the queued writes of a database now (no-op when none are queued). */
export function commitQueuedWrites(db: Db): void {
  const queue = writeQueues.get(db);
  if (!queue) return;
  writeQueues.delete(db);
  const { deps, writes } = queue;
  let outcomes: WriteOutcome[];
  try {
    outcomes = inTransaction(db, () =>
      writes.map((write): WriteOutcome => {
        try {
          // nested: a savepoint, rolled back alone if this write throws
          return {
            ok: true,
            ...inTransaction(db, () => {
              const now = deps.clock.now();
              const changes = new ChangeSet();
              const value = write.fn(changes, now);
              return { value, events: changes.toEvents(deps, now) };
            }),
          };
        } catch (error) {
          return { ok: false, error };
        }
      }),
    );
  } catch (error) {
    // the COMMIT itself failed: nothing of the batch is stored, so no write may be acknowledged
    deps.log.error({ err: error, writes: writes.length }, 'group commit failed');
    for (const write of writes) write.reject(error);
    return;
  }
  writes.forEach((write, i) => {
    const outcome = outcomes[i]!;
    if (!outcome.ok) return write.reject(outcome.error);
    publishCommitted(deps, outcome.events, { exceptSocketId: write.exceptSocketId });
    write.resolve(outcome.value);
  });
}
