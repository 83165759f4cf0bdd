import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import type { Logger } from '../log.js';
import type { OutgoingEvent } from '../services/deps.js';

/** Reads committed events of a namespace with a seq above `since`, in seq order (the event log). */
export type ReadEventsSince = (input: { namespace: string; since: number }) => Promise<UpdateEvent[]>;

export interface SequencerOptions {
  /** Sends one event to this process's sockets. */
  deliver: (event: OutgoingEvent, exceptSocketId: string | undefined) => void;
  readEventsSince: ReadEventsSince;
  /**
   * The namespace's last committed seq, from the log. With it, a tenant's delivery starts after the
   * seq committed when its first socket connected here (`watch`), not at the first event heard of.
   */
  readCommittedSeq?: (namespace: string) => Promise<number>;
  log: Logger;
  /** How long a seq gap may stay open before the missing events are read from the log. */
  gapWaitMs?: number;
  /** Events held per tenant while waiting; beyond this the log is read at once. */
  maxHeldPerTenant?: number;
}

export interface Sequencer {
  /** Takes committed events (local or from another process) in any order; never throws. */
  accept(events: readonly OutgoingEvent[], exceptSocketId?: string): void;
  /**
   * Reads, for every tenant seen so far, what the log has beyond the last delivered seq. Events a
   * process committed but never published (its Redis link was down, or it died right after the
   * commit) otherwise wait for the tenant's next event to show the gap.
   */
  catchUp(): void;
  /**
   * A socket of this process was brought up to `seq` from the database (subscribe, replay). If no
   * event of the tenant was delivered here yet, delivery starts after `seq`: a later seq that never
   * arrives is then read from the log rather than taken as older than the first one heard of.
   */
  caughtUp(namespace: string, seq: number): void;
  /**
   * A socket of the tenant connected here. If no event of the tenant was delivered here yet,
   * delivery starts after the seq committed now (readCommittedSeq): a seq committed later is
   * delivered even if it arrives after a higher one, however late.
   */
  watch(namespace: string): void;
  /** Stops timers; events still held are not delivered. */
  close(): void;
}

export const DEFAULT_GAP_WAIT_MS = 25;
export const DEFAULT_MAX_HELD_PER_TENANT = 1000;

interface Held {
  outgoing: OutgoingEvent;
  exceptSocketId: string | undefined;
}

interface TenantQueue {
  namespace: string;
  /** The next seq to deliver; undefined until the first events for this tenant have been sorted. */
  expected: number | undefined;
  held: Map<number, Held>;
  timer: NodeJS.Timeout | undefined;
  /** A log read is in flight: deliveries wait for it. */
  reading: boolean;
  /** Events were turned away while the queue was full: they are read from the log instead. */
  overflowed: boolean;
  /** watch's read of the committed seq is in flight: deliveries wait for it. */
  starting: boolean;
}

/**
 * Delivers each tenant's committed events to this process's sockets strictly in seq order. Every
 * write of a namespace holds its namespace's lock (or the all-namespaces one), so its seqs commit in order; they only arrive out of order because
 * each process publishes its own commits, through Redis. An event above the next expected seq waits
 * (the missing ones are normally in flight from another process); if the gap is still open after
 * `gapWaitMs` — say the process that committed them was killed before publishing — the missing events
 * are read from the event log. A seq that is committed is never skipped: only a seq the log does not
 * have (pruned, or never used) is.
 */
export function createSequencer(options: SequencerOptions): Sequencer {
  const gapWaitMs = options.gapWaitMs ?? DEFAULT_GAP_WAIT_MS;
  const maxHeld = options.maxHeldPerTenant ?? DEFAULT_MAX_HELD_PER_TENANT;
  const { log } = options;
  const tenants = new Map<string, TenantQueue>();
  let closed = false;

  function tenant(namespace: string): TenantQueue {
    let queue = tenants.get(namespace);
    if (!queue) {
      queue = { namespace, expected: undefined, held: new Map(), timer: undefined, reading: false, overflowed: false, starting: false };
      tenants.set(namespace, queue);
    }
    return queue;
  }

  function deliver(held: Held): void {
    try {
      options.deliver(held.outgoing, held.exceptSocketId);
    } catch (error) {
      log.error({ err: error, tenant: held.outgoing.namespace, seq: held.outgoing.event.seq }, 'could not deliver an update');
    }
  }

  function stopTimer(queue: TenantQueue): void {
    if (queue.timer) clearTimeout(queue.timer);
    queue.timer = undefined;
  }

  function lowestHeld(queue: TenantQueue): number {
    let lowest = Number.POSITIVE_INFINITY;
    for (const seq of queue.held.keys()) if (seq < lowest) lowest = seq;
    return lowest;
  }

  /** Delivers what is in order, then waits (or reads the log) for the rest. */
  function drain(queue: TenantQueue): void {
    if (closed || queue.reading || queue.starting) return;
    if (queue.expected === undefined && options.readCommittedSeq) {
      // no socket of the tenant connected here before this event (watch was never called): nobody
      // is owed an earlier seq, so delivery starts at the lowest one heard of
      queue.expected = lowestHeld(queue);
    }
    if (queue.expected === undefined) {
      // Without readCommittedSeq: the first events seen wait once, so ones committed just before
      // (still in flight) are not mistaken for old ones; then start from the lowest.
      if (queue.held.size < maxHeld) {
        queue.timer ??= setTimeout(() => {
          queue.timer = undefined;
          queue.expected = lowestHeld(queue);
          drain(queue);
        }, gapWaitMs);
        return;
      }
      stopTimer(queue);
      queue.expected = lowestHeld(queue);
    }
    for (let next = queue.held.get(queue.expected); next; next = queue.held.get(queue.expected)) {
      queue.held.delete(queue.expected);
      queue.expected += 1;
      deliver(next);
    }
    if (queue.held.size === 0 && !queue.overflowed) return stopTimer(queue);
    if (queue.held.size >= maxHeld || queue.overflowed) return void readGap(queue);
    queue.timer ??= setTimeout(() => {
      queue.timer = undefined;
      void readGap(queue);
    }, gapWaitMs);
  }

  /**
   * Reads the log after the last delivered seq and delivers, in order, everything up to the highest
   * held seq (or, after an overflow, everything the log has). The held copy of an event wins over the
   * log's: it carries the writer to skip.
   */
  async function readGap(queue: TenantQueue): Promise<void> {
    stopTimer(queue);
    const since = (queue.expected ?? lowestHeld(queue)) - 1;
    let through = Number.NEGATIVE_INFINITY;
    for (const seq of queue.held.keys()) if (seq > through) through = seq;
    const overflowed = queue.overflowed;
    queue.reading = true;
    queue.overflowed = false;
    let fromLog: UpdateEvent[] = [];
    try {
      fromLog = await options.readEventsSince({ namespace: queue.namespace, since });
    } catch (error) {
      log.error({ err: error, tenant: queue.namespace, since, through }, 'could not read missing updates from the event log; they are skipped');
    }
    queue.reading = false;
    if (closed) return;
    for (const event of fromLog) {
      if (!overflowed && event.seq > through) break;
      if (event.seq > through) through = event.seq;
      if (!queue.held.has(event.seq)) {
        queue.held.set(event.seq, { outgoing: { namespace: queue.namespace, sid: event.body.sid, event }, exceptSocketId: undefined });
      }
    }
    // Everything up to `through` is committed now (seqs commit in order), so a seq still missing is
    // not in the log at all: deliver past it.
    const ready = [...queue.held.keys()].filter((seq) => seq <= through).sort((a, b) => a - b);
    const missing = ready.length === 0 ? 0 : ready[ready.length - 1]! - since - ready.length;
    if (missing > 0) log.warn({ tenant: queue.namespace, since, through, missing }, 'updates missing from the event log were skipped');
    for (const seq of ready) {
      const held = queue.held.get(seq)!;
      queue.held.delete(seq);
      deliver(held);
    }
    queue.expected = Math.max(queue.expected ?? 0, through + 1, since + 1);
    drain(queue);
  }

  function acceptOne(outgoing: OutgoingEvent, exceptSocketId: string | undefined): void {
    const queue = tenant(outgoing.namespace);
    const { seq } = outgoing.event;
    if (queue.expected !== undefined && seq < queue.expected) return; // delivered already
    if (queue.held.has(seq)) return; // a duplicate
    if (queue.reading && queue.held.size >= maxHeld) {
      queue.overflowed = true; // committed, so the log has it: read after the current read
      return;
    }
    // fast path, the usual case: the next seq with nothing waiting
    if (seq === queue.expected && queue.held.size === 0 && !queue.reading) {
      queue.expected += 1;
      deliver({ outgoing, exceptSocketId });
      return;
    }
    queue.held.set(seq, { outgoing, exceptSocketId });
  }

  return {
    accept(events, exceptSocketId) {
      if (closed) return;
      const touched = new Set<TenantQueue>();
      for (const outgoing of events) {
        try {
          acceptOne(outgoing, exceptSocketId);
          touched.add(tenant(outgoing.namespace));
        } catch (error) {
          log.error({ err: error }, 'could not sequence an update');
        }
      }
      for (const queue of touched) {
        try {
          drain(queue);
        } catch (error) {
          log.error({ err: error, tenant: queue.namespace }, 'could not sequence updates');
        }
      }
    },
    catchUp() {
      if (closed) return;
      for (const queue of tenants.values()) {
        // a queue waiting on a gap or reading already reads the log by itself
        if (queue.expected === undefined || queue.reading || queue.timer || queue.held.size > 0) continue;
        queue.overflowed = true; // read everything the log has after the last delivered seq
        void readGap(queue);
      }
    },
    caughtUp(namespace, seq) {
      if (closed) return;
      const queue = tenant(namespace);
      if (queue.expected !== undefined || queue.reading) return;
      stopTimer(queue);
      queue.expected = seq + 1;
      for (const held of queue.held.keys()) if (held <= seq) queue.held.delete(held);
      try {
        drain(queue);
      } catch (error) {
        log.error({ err: error, tenant: namespace }, 'could not sequence updates');
      }
    },
    watch(namespace) {
      const read = options.readCommittedSeq;
      if (closed || !read) return;
      const queue = tenant(namespace);
      if (queue.expected !== undefined || queue.starting) return;
      queue.starting = true;
      read(namespace).then(
        (seq) => {
          queue.starting = false;
          // events held meanwhile were committed around the connect: delivered rather than dropped
          if (queue.expected === undefined) queue.expected = Math.min(seq + 1, lowestHeld(queue));
          if (queue.held.size > 0) drain(queue);
        },
        (error: unknown) => {
          queue.starting = false;
          log.error({ err: error, tenant: namespace }, 'could not read the committed seq; delivery starts at the first event heard of');
          drain(queue);
        },
      );
    },
    close() {
      closed = true;
      for (const queue of tenants.values()) stopTimer(queue);
    },
  };
}
