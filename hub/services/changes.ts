import type { Approval } from '../../shared/protocol/attention.js';
import type { UpdateBody } from '../../shared/protocol/broadcast.js';
import type { Message } from '../../shared/protocol/messages.js';
import type { TurnSummary } from '../../shared/protocol/session.js';
import { prefetchBatchReads, type WriteReads } from '../store/batch-reads.js';
import { appendEvent } from '../store/events.js';
import { getSessionAnyNamespace, type StoredSession } from '../store/sessions.js';
import { CarriedRowsStale, CommitOutcomeUnknown, SavepointsNeeded, type Store, type Tx } from '../store/sql.js';
import { hubError } from '../../shared/errors.js';
import { getSessionUsage } from '../store/usage.js';
import type { Actor, HubDeps, OutgoingEvent } from './deps.js';
import { BatchPacing } from './batch-pacing.js';
import { LoserFirst, type Contention } from './loser-first.js';
import { sessionTitleOf, sessionViewOf, type SessionView } from './session-view.js';
import { lifecycleOf, presenceOf, toSnapshot } from './snapshots.js';

/** `view`: only the derived title and activity may have moved (the current turn opened or closed). */
type Field = 'metadata' | 'agentState' | 'lifecycle' | 'presence' | 'attention' | 'view';
/** Fields as bits: a changed session costs one small object per write, not a Set. */
const FIELD_BITS: Record<Field, number> = { metadata: 1, agentState: 2, lifecycle: 4, presence: 8, attention: 16, view: 32 };
/** The fields whose change may move a session's activity and last prompt (session-view.ts). */
const VIEW_INPUTS = FIELD_BITS.lifecycle | FIELD_BITS.presence | FIELD_BITS.attention | FIELD_BITS.view;

interface ChangedSession {
  session: StoredSession;
  fields: number;
  /** The metadata version whose history row this unit of work wrote (historyWritten). */
  historyVersion: number | undefined;
}

/**
 * What one unit of work changed. At commit it becomes events, in one transaction with the
 * changes themselves: a `session-created`, the `turn`s in order, the `approval`s in order, then one
 * `update-session` per session carrying every field that changed, with its stored value, and its
 * derived title and activity as they are now.
 */
export class ChangeSet {
  private readonly created = new Set<string>();
  /** The changed sessions, as the unit of work left them (callers keep these objects current). */
  private readonly sessions = new Map<string, ChangedSession>();
  private readonly turns: { namespace: string; turn: TurnSummary }[] = [];
  private readonly approvals: { namespace: string; approval: Approval }[] = [];
  private readonly messages: { namespace: string; message: Message }[] = [];
  /** Sessions whose usage totals changed: their last `turn` event carries the new totals. */
  private readonly usageChangedSids = new Set<string>();
  /** Sessions whose view moved but whose object the caller does not hold. */
  private readonly unread = new Set<string>();

  sessionCreated(sid: string): this {
    this.created.add(sid);
    return this;
  }

  changed(session: StoredSession, ...fields: Field[]): this {
    let entry = this.sessions.get(session.sid);
    if (!entry) this.sessions.set(session.sid, (entry = { session, fields: 0, historyVersion: undefined }));
    else entry.session = session;
    for (const field of fields) entry.fields |= FIELD_BITS[field];
    return this;
  }

  /** The session's metadata `version` has its history row in this transaction: its event refers to it. */
  historyWritten(session: StoredSession, version: number): this {
    this.changed(session).sessions.get(session.sid)!.historyVersion = version;
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

  /** An approval opened or changed status. */
  approval(namespace: string, approval: Approval): this {
    this.approvals.push({ namespace, approval });
    return this;
  }

  /** A person's message was queued or changed state. */
  message(namespace: string, message: Message): this {
    this.messages.push({ namespace, message });
    return this;
  }

  usageChanged(sid: string): this {
    this.usageChangedSids.add(sid);
    return this;
  }

  /**
   * The derived fields that may have moved with `fields`: all of them with a lifecycle, presence,
   * attention or current-turn change, the title alone with a metadata write, none with a state
   * write (each costs reads in the writer's transaction).
   */
  private async viewOf(tx: Tx, session: StoredSession, fields: number): Promise<Partial<SessionView>> {
    if (fields & VIEW_INPUTS) return sessionViewOf(tx, session);
    if (fields & FIELD_BITS.metadata) return { title: sessionTitleOf(session) };
    return {};
  }

  /** Appends the events to the log; call inside the transaction. */
  async toEvents(tx: Tx, deps: Pick<HubDeps, 'clock' | 'config'>, now: number): Promise<OutgoingEvent[]> {
    const out: OutgoingEvent[] = [];
    const emit = async (namespace: string, sid: string, body: UpdateBody, metadataVersion?: number) =>
      out.push({ namespace, sid, event: await appendEvent(tx, { namespace, sid, body, now, metadataVersion }) });

    for (const sid of this.created) {
      const session = (await getSessionAnyNamespace(tx, sid))!;
      await emit(session.namespace, sid, { t: 'session-created', sid, session: await toSnapshot(tx, deps, session) });
    }
    const lastTurnEvent = new Map(this.turns.map(({ turn }, index) => [turn.sid, index]));
    for (const [index, { namespace, turn }] of this.turns.entries()) {
      const withTotals = this.usageChangedSids.has(turn.sid) && lastTurnEvent.get(turn.sid) === index;
      const sessionUsage = withTotals ? { sessionUsage: await getSessionUsage(tx, turn.sid) } : {};
      await emit(namespace, turn.sid, { t: 'turn', sid: turn.sid, turn, ...sessionUsage });
    }
    for (const { namespace, approval } of this.approvals) await emit(namespace, approval.sid, { t: 'approval', sid: approval.sid, approval });
    for (const { namespace, message } of this.messages) await emit(namespace, message.sid, { t: 'message', sid: message.sid, message });
    for (const sid of this.unread) {
      if (this.sessions.has(sid)) continue;
      const session = await getSessionAnyNamespace(tx, sid);
      if (session) this.changed(session, 'view');
    }
    for (const [sid, { session, fields, historyVersion }] of this.sessions) {
      if (this.created.has(sid) || fields === 0) continue;
      const withMetadata = (fields & FIELD_BITS.metadata) !== 0;
      await emit(session.namespace, sid, {
        t: 'update-session',
        sid,
        metadata: withMetadata ? { version: session.metadataVersion, value: session.metadata } : null,
        agentState: fields & FIELD_BITS.agentState ? { version: session.agentStateVersion, value: session.agentState } : null,
        lifecycle: fields & FIELD_BITS.lifecycle ? lifecycleOf(session) : null,
        presence: fields & FIELD_BITS.presence ? presenceOf(session) : null,
        attention: fields & FIELD_BITS.attention ? { value: session.attention } : null,
        ...(await this.viewOf(tx, session, fields)),
      }, withMetadata && historyVersion === session.metadataVersion ? historyVersion : undefined);
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
  reads: WriteReads | undefined;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type WriteOutcome = { ok: true; value: unknown; events: OutgoingEvent[] } | { ok: false; error: unknown };

/** Per store and namespace: the writes waiting for the next batch, and the batches being committed. */
interface WriteQueue {
  /** The one namespace its batches write, or undefined for any. */
  namespace: string | undefined;
  waiting: QueuedWrite[];
  /** Batches started and not ended: one, or up to MAX_BATCHES_IN_FLIGHT where batches overlap. */
  running: number;
  /**
   * PostgreSQL's namespace queues: the next batch starts once the last one has sent its COMMIT, so
   * its BEGIN, lock and reads travel while that COMMIT does (one round trip a batch instead of two
   * across a network). It commits only after that COMMIT succeeded (`lastAttempt`), or, on carried
   * rows, sends its COMMIT at once with a claim that fails unless that one committed.
   */
  overlaps: boolean;
  /** The last started transaction's outcome (true: committed), and whether its COMMIT is sent. */
  lastAttempt: Promise<boolean> | undefined;
  lastCommitSent: boolean;
  /** The last started batch's writes answered: the next batch's are answered (and published) after them. */
  answered: Promise<void>;
  /** A batch failed: no batch starts until the ones started before then ended (they run again, in order). */
  held: Promise<void> | undefined;
  scheduled: boolean;
  /** The scheduled batch's start while it waits for writes coming back (batch-pacing.ts). */
  lingering: NodeJS.Timeout | undefined;
  fairness: LoserFirst;
  /** PostgreSQL's queues: a SQLite batch never waits on a network (its wall time past its CPU is the machine's load). */
  pacing: BatchPacing | undefined;
}

const writeQueues = new WeakMap<Store, Map<string, WriteQueue>>();

/**
 * The queue a write joins. On PostgreSQL a write of one namespace joins its namespace's queue, whose
 * batches take only that namespace's lock, so tenants commit in parallel; SQLite has one writer, so
 * one queue makes the biggest batches.
 */
function queueOf(store: Store, namespace: string | undefined): WriteQueue {
  let queues = writeQueues.get(store);
  if (!queues) writeQueues.set(store, (queues = new Map()));
  const own = store.dialect === 'postgres' ? namespace : undefined;
  const key = own === undefined ? '' : `ns:${own}`;
  let queue = queues.get(key);
  if (!queue) {
    const postgres = store.dialect === 'postgres';
    queue = {
      namespace: own, waiting: [], running: 0, overlaps: postgres && own !== undefined, lastAttempt: undefined, lastCommitSent: false, answered: Promise.resolve(), held: undefined,
      scheduled: false, lingering: undefined, fairness: new LoserFirst(), pacing: postgres ? new BatchPacing() : undefined,
    };
    queues.set(key, queue);
  }
  return queue;
}

/**
 * The write options of an actor's own write: its socket gets no `update` for it (it has the ack),
 * and it commits in its namespace's batches (it writes that namespace only).
 */
export function actorWrite(actor: Pick<Actor, 'socketId' | 'namespace'>): { exceptSocketId?: string; namespace: string } {
  return { exceptSocketId: actor.socketId, namespace: actor.namespace };
}

/** An actor's write to one of its sessions: its session, current turn and pending approvals read with the batch's (batch-reads.ts). */
export function sessionWrite(actor: Pick<Actor, 'socketId' | 'namespace'>, sid: string, options: { ending?: boolean; usage?: boolean } = {}): { exceptSocketId?: string; namespace: string; reads: WriteReads } {
  return { ...actorWrite(actor), reads: { namespace: actor.namespace, sid, turn: true, ...(options.ending ? { ending: true } : {}), ...(options.usage ? { usage: true } : {}) } };
}

/**
 * One unit of work: its changes and their events commit together or not at all; the events are
 * published only after the commit, to every socket entitled to them but `exceptSocketId`.
 *
 * Group commit: writes that arrive while the previous batch commits (or in the same event-loop
 * turn) commit in ONE transaction, which is most of a write's cost; after a batch that waited on a
 * distant database, the next one waits briefly for the writes still coming back (batch-pacing.ts).
 * A write that throws is rolled back alone and rejects alone (commitWithout). Batches commit one
 * after another, in arrival order. The promise settles, and the events are published, only after the
 * batch's COMMIT: an acknowledged write survives a crash of the hub process like any other.
 */
export function runWrite<T>(
  deps: HubDeps,
  work: UnitOfWork<T>,
  options: {
    exceptSocketId?: string;
    contention?: Contention;
    /**
     * The one namespace the work writes (its sessions and events): it then commits in that
     * namespace's batches, in parallel with other namespaces' (PostgreSQL). Without it, the work
     * may write any namespace and its batch runs alone.
     */
    namespace?: string;
    /** What the work will read, fetched for the whole batch at once (PostgreSQL). */
    reads?: WriteReads;
  } = {},
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const queue = queueOf(deps.store, options.namespace);
    queue.waiting.push({
      work: work as UnitOfWork<unknown>,
      socketId: options.exceptSocketId,
      contention: options.contention,
      reads: options.reads,
      resolve: resolve as (value: unknown) => void,
      reject,
    });
    scheduleBatch(deps, queue);
  });
}

/**
 * Overlapping batches of a namespace on their way to PostgreSQL at once. On carried rows each sends
 * its COMMIT without waiting for the one before, on the namespace's one connection (the server runs
 * them in order): across 5 ms each way, two in flight left a write waiting a round trip for a slot.
 */
export const MAX_BATCHES_IN_FLIGHT = 4;

/** Whether another batch may start now: none running, or (overlapping) the last one's COMMIT on its way. */
function mayStart(queue: WriteQueue): boolean {
  if (queue.held) return false;
  return queue.running === 0 || (queue.overlaps && queue.running < MAX_BATCHES_IN_FLIGHT && queue.lastCommitSent);
}

/**
 * A batch failed and runs again: every batch started after it fails too (its claim names this
 * one's, or it waits for this one's outcome before its COMMIT) and runs again once the one before
 * it ended. No new batch starts until the last one started has ended, so none overtakes them.
 */
function holdStarts(deps: HubDeps, queue: WriteQueue): void {
  const until = queue.answered;
  queue.held = until;
  void until.then(() => {
    if (queue.held !== until) return;
    queue.held = undefined;
    scheduleBatch(deps, queue);
  });
}

function scheduleBatch(deps: HubDeps, queue: WriteQueue): void {
  if (!mayStart(queue) || queue.waiting.length === 0) return;
  const delay = queue.pacing?.delayFor(queue.waiting.length) ?? 0;
  if (queue.lingering) {
    // this write may have been the last of those coming back: start now
    if (delay > 0) return;
    clearTimeout(queue.lingering);
    queue.lingering = undefined;
    setImmediate(() => startBatch(deps, queue));
    return;
  }
  if (queue.scheduled) return;
  queue.scheduled = true;
  if (delay > 0) queue.lingering = setTimeout(() => startBatch(deps, queue), delay);
  // after this turn's I/O callbacks: every write that came in with this one joins the batch
  else setImmediate(() => startBatch(deps, queue));
}

function startBatch(deps: HubDeps, queue: WriteQueue): void {
  queue.scheduled = false;
  queue.lingering = undefined;
  // a lingering start may find a batch started meanwhile
  if (!mayStart(queue) || queue.waiting.length === 0) return;
  queue.running++;
  const writes = queue.fairness.order(queue.waiting.splice(0));
  const batchEnded = queue.pacing?.begin();
  const answeredBefore = queue.answered;
  let answered!: () => void;
  queue.answered = new Promise<void>((resolve) => (answered = resolve));
  void commitBatch(deps, writes, queue, answeredBefore).finally(() => {
    answered();
    batchEnded?.({ writes: writes.length, queued: queue.waiting.length });
    queue.running--;
    scheduleBatch(deps, queue);
  });
}

/** The batch overlapped one whose COMMIT failed: it is rolled back and runs again once that one ended. */
class PredecessorFailed extends Error {
  constructor() {
    super('the batch before this one did not commit');
  }
}

async function commitBatch(deps: HubDeps, writes: QueuedWrite[], queue: WriteQueue, answeredBefore: Promise<void>): Promise<void> {
  const { fairness } = queue;
  let outcomes: WriteOutcome[];
  try {
    outcomes = await commitWithout(deps, writes, queue, answeredBefore);
  } catch (error) {
    // the COMMIT itself failed: no write may be acknowledged; nothing of the batch is stored,
    // unless the connection broke during COMMIT, when nobody knows (and the answer says so)
    deps.log.error({ err: error, writes: writes.length }, 'group commit failed');
    const answer = error instanceof CommitOutcomeUnknown ? hubError.outcomeUnknown() : error;
    for (const write of writes) write.reject(answer);
    return;
  }
  // a batch that overlapped the one before may hear its COMMIT's answer first: its events go out after that one's
  await answeredBefore;
  writes.forEach((write, i) => {
    const outcome = outcomes[i]!;
    if (!outcome.ok) return write.reject(outcome.error);
    fairness.settled(write.contention, outcome.value);
    publishCommitted(deps, outcome.events, { exceptSocketId: write.socketId });
    write.resolve(outcome.value);
  });
}

/**
 * Commits the batch in one transaction and answers each write's outcome, in the batch's order.
 *
 * The engines skip the savepoint around each write (sql.ts): a write that fails before changing a
 * row has nothing to undo, and the others go on. One that fails after changing rows poisons the
 * transaction, which is rolled back whole with `SavepointsNeeded`; then the batch runs again
 * without the writes that failed (each answered its own error), which leaves the same rows a real
 * savepoint's rollback would have, and so on until a run commits (each run drops at least one write).
 */
async function commitWithout(deps: HubDeps, writes: QueuedWrite[], queue: WriteQueue, answeredBefore: Promise<void>): Promise<WriteOutcome[]> {
  const failed = new Map<QueuedWrite, WriteOutcome>();
  let savepoints: 'as-needed' | 'always' = 'as-needed';
  // the transaction whose COMMIT was on its way when this batch started (overlapping queues)
  let before = queue.running > 1 ? queue.lastAttempt : undefined;
  for (;;) {
    const running = failed.size === 0 ? writes : writes.filter((write) => !failed.has(write));
    const outcomes: WriteOutcome[] = [];
    let settle!: (committed: boolean) => void;
    queue.lastAttempt = new Promise<boolean>((resolve) => (settle = resolve));
    queue.lastCommitSent = false;
    const awaited = before;
    before = undefined;
    try {
      await deps.store.transaction(async (tx) => {
        await prefetchBatchReads(tx, running.flatMap((write) => (write.reads ? [write.reads] : [])));
        for (const write of running) outcomes.push(await runOne(deps, tx, write));
        // committed after the one before, or not at all: it read the rows that one left. Carried rows
        // check that in the database (the claim names that one's): the COMMIT need not wait for its answer
        if (awaited && !tx.carried && !(await awaited)) throw new PredecessorFailed();
      }, {
        savepoints,
        namespace: queue.namespace,
        onCommitSent: queue.overlaps ? () => {
          queue.lastCommitSent = true;
          scheduleBatch(deps, queue);
        } : undefined,
      });
      settle(true);
    } catch (error) {
      settle(false);
      const runsAgain = error instanceof CarriedRowsStale || error instanceof PredecessorFailed || error instanceof SavepointsNeeded;
      if (!runsAgain) throw error;
      holdStarts(deps, queue);
      // once the batch before ended (it may run again too: its writes go first)
      await answeredBefore;
      if (!(error instanceof SavepointsNeeded)) {
        // the batch before did not commit, or the rows kept from it were not current: once more, on rows read afresh
        const why = awaited && !(await awaited) ? 'the batch before this one did not commit: this one runs again after it' : 'rows kept from the last batch were stale; the batch runs again on rows read afresh';
        deps.log.debug({ writes: running.length }, why);
        continue;
      }
      let dropped = 0;
      running.forEach((write, i) => {
        const outcome = outcomes[i];
        if (!outcome || outcome.ok || outcome.error instanceof SavepointsNeeded) return;
        failed.set(write, outcome);
        dropped++;
      });
      deps.log.warn({ err: error.cause, writes: running.length, dropped }, 'a write failed after changing rows; its batch runs again without the writes that failed');
      // no write to blame (not expected): the same batch once more, with real savepoints
      if (dropped === 0) {
        if (savepoints === 'always') throw error;
        savepoints = 'always';
      }
      continue;
    }
    if (failed.size === 0) return outcomes;
    let next = 0;
    return writes.map((write) => failed.get(write) ?? outcomes[next++]!);
  }
}

/** One write of a batch: its unit of work and its events, or the error it failed with. */
async function runOne(deps: HubDeps, tx: Tx, write: QueuedWrite): Promise<WriteOutcome> {
  try {
    return await tx.savepoint(async (): Promise<WriteOutcome> => {
      const now = deps.clock.now();
      const changes = new ChangeSet();
      const value = await write.work(tx, changes, now);
      return { ok: true, value, events: await changes.toEvents(tx, deps, now) };
    });
  } catch (error) {
    return { ok: false, error };
  }
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
