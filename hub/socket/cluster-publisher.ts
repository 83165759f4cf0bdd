import type { CommittedBatch } from '../../shared/protocol/events.js';
import { watchPeers } from '../cluster/peers.js';
import type { Logger } from '../log.js';
import type { HubMetrics } from '../metrics/metrics.js';
import type { OutgoingEvent, Publisher } from '../services/deps.js';
import { deliverToLocalSockets, onSocketCaughtUp } from './publisher.js';
import { createSequencer, type ReadEventsSince } from './sequencer.js';
import type { DashboardNamespace, RunnerNamespace } from './types.js';

export interface ClusterPublisherOptions {
  /** Namespaces of a Socket.IO server whose adapter reaches the other processes (Redis). */
  runners: RunnerNamespace;
  dashboards: DashboardNamespace;
  metrics: HubMetrics;
  log: Logger;
  /** The event log, for seqs another process committed but never delivered here. */
  readEventsSince: ReadEventsSince;
  /** A namespace's last committed seq: a tenant's delivery starts there when its first socket connects. */
  readCommittedSeq?: (namespace: string) => Promise<number>;
  gapWaitMs?: number;
  maxHeldPerTenant?: number;
  /** How often every tenant's log is checked past the last delivered seq (default 2 s). */
  catchUpMs?: number;
  /** How often the processes listening on Redis are counted (peers.ts; default 500 ms). */
  peersPollMs?: number;
}

const DEFAULT_CATCH_UP_MS = 2000;

export interface ClusterPublisher extends Publisher {
  /** Stops listening to the other processes and drops what is still held. */
  close(): void;
}

const EVENT = 'committed-events';
/** A process announces itself once it listens, before it accepts sockets (peers.ts). */
const HELLO = 'hub-hello';

/** A batch from another process, if it has the expected shape (a process of another version may not). */
function readBatch(batch: unknown): CommittedBatch | undefined {
  if (typeof batch !== 'object' || batch === null) return undefined;
  const { events, exceptSocketId } = batch as Partial<CommittedBatch>;
  if (!Array.isArray(events) || (exceptSocketId !== undefined && typeof exceptSocketId !== 'string')) return undefined;
  const wellFormed = events.every((e) => typeof e?.namespace === 'string' && typeof e.sid === 'string' && Number.isInteger(e.event?.seq));
  return wellFormed ? { events, exceptSocketId } : undefined;
}

/**
 * The publisher when several hub processes share one database: each committed event goes to this
 * process's sequencer and, through the adapter, to every other process's, and each sequencer
 * delivers to its own sockets in seq order. Nothing is broadcast through the adapter's rooms, so
 * the order never depends on which process's message Redis delivers first.
 */
export function createClusterPublisher(options: ClusterPublisherOptions): ClusterPublisher {
  const { runners, dashboards, metrics, log } = options;
  const audience = { runners, dashboards, metrics };
  const sequencer = createSequencer({
    deliver: (outgoing, exceptSocketId) => deliverToLocalSockets(audience, outgoing, exceptSocketId),
    readEventsSince: options.readEventsSince,
    readCommittedSeq: options.readCommittedSeq,
    log,
    gapWaitMs: options.gapWaitMs,
    maxHeldPerTenant: options.maxHeldPerTenant,
  });
  const fromOtherProcess = (batch: unknown) => {
    const read = readBatch(batch);
    if (!read) return log.warn('ignored a malformed batch of committed events from another hub process');
    sequencer.accept(read.events, read.exceptSocketId);
  };
  runners.on(EVENT, fromOtherProcess);
  for (const namespace of [runners, dashboards]) {
    onSocketCaughtUp(namespace, (tenant, seq) => sequencer.caughtUp(tenant, seq));
    // identity is set by the handshake middleware, before 'connection'; a server without it (a bare
    // Socket.IO node) has no tenant to watch
    namespace.on('connection', (socket) => {
      const identity = (socket.data as { identity?: { namespace: string } } | undefined)?.identity;
      if (identity) sequencer.watch(identity.namespace);
    });
  }
  // a process alone on Redis sends its batches to nobody: it skips them until another one listens
  const peers = watchPeers({ count: () => runners.adapter.serverCount(), pollMs: options.peersPollMs, log });
  const onHello = () => peers.heard();
  runners.on(HELLO, onHello);
  try {
    runners.serverSideEmit(HELLO);
  } catch (error) {
    // the others find this process by counting within peersPollMs
    log.warn({ err: error }, 'could not announce this hub process to the others');
  }
  // the tail of what a process committed but could not publish (Redis down) arrives within this
  const catchUp = setInterval(() => sequencer.catchUp(), options.catchUpMs ?? DEFAULT_CATCH_UP_MS);
  catchUp.unref();
  /**
   * What this process committed and the others have not been sent yet. Group commit publishes each
   * write of a batch in one turn (services/changes.ts): they go out as one Redis message at the end
   * of that turn, not one per write (a publish, and a parse by every process, per message). The
   * writer's socket to skip lives on this process only, so the message needs no per-write part.
   */
  let outbox: OutgoingEvent[] = [];
  let closed = false;
  const sendOutbox = () => {
    const events = outbox;
    outbox = [];
    if (closed || events.length === 0 || !peers.present()) return;
    try {
      const batch: CommittedBatch = { events };
      runners.serverSideEmit(EVENT, batch);
    } catch (error) {
      // the other processes read what they miss from the log when their next event shows the gap
      log.error({ err: error }, 'could not send committed events to the other hub processes');
    }
  };
  return {
    publish(events: readonly OutgoingEvent[], publishOptions: { exceptSocketId?: string } = {}) {
      if (events.length === 0) return;
      sequencer.accept(events, publishOptions.exceptSocketId);
      if (outbox.length === 0) queueMicrotask(sendOutbox);
      outbox.push(...events);
    },
    close() {
      closed = true;
      clearInterval(catchUp);
      runners.off(EVENT, fromOtherProcess);
      runners.off(HELLO, onHello);
      peers.close();
      sequencer.close();
    },
  };
}
