import type { UpdateBody } from '../../shared/protocol/broadcast.js';
import type { TurnSummary } from '../../shared/protocol/session.js';
import type { Db } from '../store/db.js';
import { appendEvent } from '../store/events.js';
import { getSessionAnyNamespace } from '../store/sessions.js';
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
  private readonly fields = new Map<string, Set<Field>>();
  private readonly turns: TurnSummary[] = [];

  sessionCreated(sid: string): this {
    this.created.add(sid);
    return this;
  }

  changed(sid: string, ...fields: Field[]): this {
    let set = this.fields.get(sid);
    if (!set) this.fields.set(sid, (set = new Set()));
    for (const field of fields) set.add(field);
    return this;
  }

  turn(turn: TurnSummary): this {
    this.turns.push(turn);
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
    for (const turn of this.turns) {
      const session = getSessionAnyNamespace(deps.db, turn.sid)!;
      emit(session.namespace, turn.sid, { t: 'turn', sid: turn.sid, turn });
    }
    for (const [sid, fields] of this.fields) {
      if (this.created.has(sid) || fields.size === 0) continue;
      const session = getSessionAnyNamespace(deps.db, sid)!;
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
  const now = deps.clock.now();
  const changes = new ChangeSet();
  const { value, events } = inTransaction(deps.db, () => {
    const value = fn(changes, now);
    return { value, events: changes.toEvents(deps, now) };
  });
  if (events.length > 0) deps.publisher.publish(events, options);
  return value;
}
