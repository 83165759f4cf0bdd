import { performance } from 'node:perf_hooks';

/**
 * When a write queue's next group-committed batch starts.
 *
 * By default at once (the next event-loop turn). But a batch that mostly waited on the database —
 * PostgreSQL across a network: two round trips of 10 ms at 5 ms each way, the hub idle meanwhile —
 * splits a fleet in two. Its acks go out together; the runners' next writes come back over a
 * millisecond or two; the first one starts the next batch alone with whoever came with it, and the
 * rest wait a whole batch for the one after. Each write then waits ≈ two batches (measured: 47 ms
 * ack p50 for 10 runners at 5 ms each way, one process). After such a batch the next one waits for
 * as many writes as were in flight when it ended (the ones it acknowledged and the ones that queued
 * meanwhile), at most a tenth of the batch's time (≤ MAX_LINGER_MS): the fleet commits together
 * again, in one batch, for ≈ 10 % more latency at worst (28 ms ack p50 in the same bench).
 *
 * Never after a batch under 10 ms (a database on this machine: the wait would be under a timer's 1 ms).
 * Never after a batch that kept the hub busy (its event loop busy at least half the batch's time): there
 * waiting would idle the one resource in short supply. Never once a tenth of a batch's time has
 * passed since the last one ended: a write after a pause starts its batch at once. PostgreSQL's
 * queues only (services/changes.ts): a SQLite batch has no round trips to wait on.
 */

/** The most a batch waits for writes still coming back, whatever the previous batch's time. */
export const MAX_LINGER_MS = 5;
/** The least worth waiting: batches under ten times this (a database on this machine) never make the next one wait. */
export const MIN_LINGER_MS = 1;

/** What one batch took, for pacing the next. */
export interface BatchTiming {
  /** Writes the batch committed or answered. */
  writes: number;
  /** Writes that queued while it ran. */
  queued: number;
  wallMs: number;
  /** The event loop's busy time over the batch's wall time (other queues' work included: it only lowers the linger). */
  cpuMs: number;
}

export class BatchPacing {
  /** Writes expected back before the next batch starts (0: start at once). */
  private expected = 0;
  /** Until when the next batch may wait for them (ms, `now`'s clock). */
  private lingerUntil = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** A batch starts: call the answer when it ended, with its counts (it adds the batch's wall and CPU time). */
  begin(): (counts: Pick<BatchTiming, 'writes' | 'queued'>) => void {
    const startedAt = this.now();
    // the loop's busy time, not process.cpuUsage(): a getrusage call per batch is a real share of the
    // hub's CPU on PostgreSQL's small overlapping batches
    const loopBefore = performance.eventLoopUtilization();
    return (counts) => {
      const loop = performance.eventLoopUtilization(loopBefore);
      this.ended({ ...counts, wallMs: this.now() - startedAt, cpuMs: loop.active });
    };
  }

  /** A batch ended: from its timing, whether and how long the next one waits for writes coming back. */
  ended(timing: BatchTiming): void {
    const waitedOnDatabase = timing.cpuMs < timing.wallMs / 2;
    const linger = Math.min(MAX_LINGER_MS, timing.wallMs / 10);
    // a timer fires after 1 ms at the soonest: a shorter wait (a database on this machine) would be stretched
    if (!waitedOnDatabase || linger < MIN_LINGER_MS) {
      this.expected = 0;
      return;
    }
    this.expected = timing.writes + timing.queued;
    this.lingerUntil = this.now() + linger;
  }

  /** With `waiting` writes queued, how long the next batch should still wait (0: start it now). */
  delayFor(waiting: number): number {
    if (waiting >= this.expected) return 0;
    return Math.max(0, this.lingerUntil - this.now());
  }
}
