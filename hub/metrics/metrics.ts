/**
 * The hub's Prometheus metrics (spec section 12): counts and timings only, never a token or a
 * session's content, so no label ever carries a sid, tag, token or document value. Each hub owns
 * its own Registry (created in the composition root), so several in-process hubs never collide on
 * prom-client's global default registry.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { SweepReport } from '../lifecycle/sweeps.js';

/** What a sweep changed, by kind: the SweepReport counts. */
const SWEEP_KINDS = ['turnsTimedOut', 'sessionsInactive', 'runsOfStoppedHubs', 'runsInterrupted', 'silentRunsEnded', 'sessionsIdled', 'eventsPruned'] as const;

export interface HubMetrics {
  registry: Registry;
  connected: Gauge<'kind'>;
  writes: Counter<'event' | 'result'>;
  ackDelay: Histogram<'event'>;
  broadcasts: Counter<'audience'>;
  sweepDuration: Histogram;
  sweepChanges: Counter<'kind'>;
  /** Events and HTTP calls refused `rate_limited`, by the limit met (bound once: a refusal stays cheap). */
  rateLimited: Record<'socket' | 'token', { inc(): void }>;
  /** Records one sweep's duration and what it changed. */
  observeSweep(report: SweepReport): void;
}

/** Process figures read at scrape time (no default-metrics observers left running per hub). */
function registerProcessGauges(registry: Registry): void {
  new Gauge({
    name: 'process_resident_memory_bytes',
    help: 'Resident memory size in bytes.',
    registers: [registry],
    collect() {
      this.set(process.memoryUsage().rss);
    },
  });
  new Gauge({
    name: 'nodejs_heap_used_bytes',
    help: 'V8 heap in use, in bytes.',
    registers: [registry],
    collect() {
      this.set(process.memoryUsage().heapUsed);
    },
  });
  new Gauge({
    name: 'process_uptime_seconds',
    help: 'Seconds since the hub process started.',
    registers: [registry],
    collect() {
      this.set(process.uptime());
    },
  });
}

export function createMetrics(): HubMetrics {
  const registry = new Registry();
  const registers = [registry];
  const connected = new Gauge({ name: 'session_hub_connected_clients', help: 'Sockets connected now, by namespace.', labelNames: ['kind'] as const, registers });
  connected.set({ kind: 'runner' }, 0);
  connected.set({ kind: 'dashboard' }, 0);
  const writes = new Counter({
    name: 'session_hub_writes_total',
    help: 'Versioned writes (update-metadata, update-state) answered, by result.',
    labelNames: ['event', 'result'] as const,
    registers,
  });
  const ackDelay = new Histogram({
    name: 'session_hub_ack_delay_seconds',
    help: 'Time from receiving a client event to answering its ack, by event name.',
    labelNames: ['event'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers,
  });
  const broadcasts = new Counter({
    name: 'session_hub_broadcasts_total',
    help: 'update events sent to a room with at least one recipient, by audience (runner rooms, dashboard rooms).',
    labelNames: ['audience'] as const,
    registers,
  });
  const sweepDuration = new Histogram({
    name: 'session_hub_sweep_duration_seconds',
    help: 'Duration of each background sweep.',
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers,
  });
  const sweepChanges = new Counter({ name: 'session_hub_sweep_changes_total', help: 'What sweeps changed, by kind.', labelNames: ['kind'] as const, registers });
  for (const kind of SWEEP_KINDS) sweepChanges.inc({ kind }, 0);
  const refusals = new Counter({
    name: 'session_hub_rate_limited_total',
    help: 'Events and HTTP calls refused rate_limited, by the limit met: socket or token (spec section 12).',
    labelNames: ['limit'] as const,
    registers,
  });
  const rateLimited = { socket: refusals.labels('socket'), token: refusals.labels('token') };
  refusals.inc({ limit: 'socket' }, 0);
  refusals.inc({ limit: 'token' }, 0);
  registerProcessGauges(registry);

  return {
    rateLimited,
    registry,
    connected,
    writes,
    ackDelay,
    broadcasts,
    sweepDuration,
    sweepChanges,
    observeSweep(report) {
      sweepDuration.observe(report.durationMs / 1000);
      for (const kind of SWEEP_KINDS) if (report[kind] > 0) sweepChanges.inc({ kind }, report[kind]);
    },
  };
}
