import type { UpdateBody } from '../../shared/protocol/broadcast.js';
import type { TurnSummary } from '../../shared/protocol/session.js';
import { appendEvent } from '../store/events.js';
import { getSessionAnyNamespace, type StoredSession } from '../store/sessions.js';
import { SavepointsNeeded, type Store, type Tx } from '../store/sql.js';
import type { HubDeps, OutgoingEvent } from './deps.js';
import { LoserFirst, type Contention } from './loser-first.js';
import { sessionViewOf } from './session-view.js';
import { lifecycleOf, presenceOf, toSnapshot } from './snapshots.js';

/** `view`: only the derived title and activity may have moved (the current turn opened or closed). */
type Field = 'metadata' | 'agentState' | 'lifecycle' | 'presence' | 'view';

/**
 * What one unit of work changed. At commit it becomes events, in one transaction with the
 * changes themselves: a `session-created`, the `turn`s in order, then one `update-session` per
 * session carrying every field that changed, with its stored value, and its derived title and
 * activity as they are now.
 */
export class ChangeSet {
  private readonly created = new Set<string>();
  /** The changed sessions, as the unit of work left them (callers keep these objects current). */
  private readonly sessions = new Map<string, { session: StoredSession; fields: Set<Field> }>();
  private readonly turns: { namespace: string; turn: TurnSummary }[] = [];
  /** Sessions whose view moved but whose object the caller does not hold. */
  private readonly unread = new Set<string>();

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

  /** The session's current turn opened or closed: its activity (and, for a first prompt, its title) moved. */
  currentTurnMoved(session: StoredSession): this {
    return this.changed(session, 'view');
  }

  /** As currentTurnMoved, for a caller holding only the sid (the sweep); the session is read at commit. */
  currentTurnMovedOf(sid: string): this {
    this.unread.add(sid);
    return this;
  }

  turn(namespace: string, turn: TurnSummary): this {
    this.turns.push({ namespace, turn });
    return this;
  }

  /** Appends the events to the log; call inside the transaction. */
  async toEvents(tx: Tx, deps: Pick<HubDeps, 'clock' | 'config'>, now: number): Promise<OutgoingEvent[]> {
    const out: OutgoingEvent[] = [];
    const emit = async (namespace: string, sid: string, body: UpdateBody) =>
      out.push({ namespace, sid, event: await appendEvent(tx, { namespace, sid, body, now }) });

    for (const sid of this.created) {
      const session = (await getSessionAnyNamespace(tx, sid))!;
      await emit(session.namespace, sid, { t: 'session-created', sid, session: await toSnapshot(tx, deps, session) });
    }
    for (const { namespace, turn } of this.turns) await emit(namespace, turn.sid, { t: 'turn', sid: turn.sid, turn });
    for (const sid of this.unread) {
      if (this.sessions.has(sid)) continue;
      const session = await getSessionAnyNamespace(tx, sid);
      if (session) this.changed(session, 'view');
    }
    for (const [sid, { session, fields }] of this.sessions) {
      if (this.created.has(sid) || fields.size === 0) continue;
      await emit(session.namespace, sid, {
        t: 'update-session',
        sid,
        metadata: fields.has('metadata') ? { version: session.metadataVersion, value: session.metadata } : null,
        agentState: fields.has('agentState') ? { version: session.agentStateVersion, value: session.agentState } : null,
        lifecycle: fields.has('lifecycle') ? lifecycleOf(session) : null,
        presence: fields.has('presence') ? presenceOf(session) : null,
        ...(await sessionViewOf(tx, session)),
      });
    }
    return out;
  }
}

/** One unit of work: reads and writes through `tx`, records what changed in `changes`. */
export type UnitOfWork<T> = (tx: Tx, changes: ChangeSet, now: number) => Promise<T>;

interface QueuedWrite {
  work: UnitOfWork<unknown>;
  /** The writer's socket: it gets no `update` for its own write (it has the ack). */
  socketId: string | undefined;
  contention: Contention | undefined;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type WriteOutcome = { ok: true; value: unknown; events: OutgoingEvent[] } | { ok: false; error: unknown };

/** Per store: the writes waiting for the next batch, and whether a batch is being committed. */
interface WriteQueue {
  waiting: QueuedWrite[];
  committing: boolean;
  scheduled: boolean;
  fairness: LoserFirst;
}

const writeQueues = new WeakMap<Store, WriteQueue>();

/**
 * One unit of work: its changes and their events commit together or not at all; the events are
 * published only after the commit, to every socket entitled to them but `exceptSocketId`.
 *
 * Group commit: writes that arrive while the previous batch commits (or in the same event-loop
 * turn) commit in ONE transaction, which is most of a write's cost. Each write runs in its own
 * savepoint, so one that throws is rolled back alone and rejects alone. Batches commit one after
 * another, in arrival order. The promise settles, and the events are published, only after the
 * batch's COMMIT: an acknowledged write survives a crash of the hub process like any other.
 */
export function runWrite<T>(
  deps: HubDeps,
  work: UnitOfWork<T>,
  options: { exceptSocketId?: string; contention?: Contention } = {},
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let queue = writeQueues.get(deps.store);
    if (!queue) writeQueues.set(deps.store, (queue = { waiting: [], committing: false, scheduled: false, fairness: new LoserFirst() }));
    queue.waiting.push({
      work: work as UnitOfWork<unknown>,
      socketId: options.exceptSocketId,
      contention: options.contention,
      resolve: resolve as (value: unknown) => void,
      reject,
    });
    scheduleBatch(deps, queue);
  });
}

function scheduleBatch(deps: HubDeps, queue: WriteQueue): void {
  if (queue.committing || queue.scheduled || queue.waiting.length === 0) return;
  queue.scheduled = true;
  // after this turn's I/O callbacks: every write that came in with this one joins the batch
  setImmediate(() => {
    queue.scheduled = false;
    queue.committing = true;
    const writes = queue.fairness.order(queue.waiting.splice(0));
    void commitBatch(deps, writes, queue.fairness).finally(() => {
      queue.committing = false;
      scheduleBatch(deps, queue);
    });
  });
}

async function commitBatch(deps: HubDeps, writes: QueuedWrite[], fairness: LoserFirst): Promise<void> {
  // each write in its own savepoint, so one that throws is rolled back alone
  const runBatch = async (tx: Tx): Promise<WriteOutcome[]> => {
    const results: WriteOutcome[] = [];
    for (const write of writes) {
      try {
        results.push({
          ok: true,
          ...(await tx.savepoint(async () => {
            const now = deps.clock.now();
            const changes = new ChangeSet();
            const value = await write.work(tx, changes, now);
            return { value, events: await changes.toEvents(tx, deps, now) };
          })),
        });
      } catch (error) {
        results.push({ ok: false, error });
      }
    }
    return results;
  };
  let outcomes: WriteOutcome[];
  try {
    try {
      outcomes = await deps.store.transaction(runBatch);
    } catch (error) {
      if (!(error instanceof SavepointsNeeded)) throw error;
      // the engine skipped savepoints to save round trips and a write failed after changing rows:
      // nothing was committed; the same batch again, with real savepoints
      deps.log.warn({ err: error.cause, writes: writes.length }, 'a write failed mid-way; running its batch again with savepoints');
      outcomes = await deps.store.transaction(runBatch, { savepoints: 'always' });
    }
  } catch (error) {
    // the COMMIT itself failed: nothing of the batch is stored, so no write may be acknowledged
    deps.log.error({ err: error, writes: writes.length }, 'group commit failed');
    for (const write of writes) write.reject(error);
    return;
  }
  writes.forEach((write, i) => {
    const outcome = outcomes[i]!;
    if (!outcome.ok) return write.reject(outcome.error);
    fairness.settled(write.contention, outcome.value);
    publishCommitted(deps, outcome.events, { exceptSocketId: write.socketId });
    write.resolve(outcome.value);
  });
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
