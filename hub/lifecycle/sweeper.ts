/**
 * Runs the background sweep (sweeps.ts) on an interval: never two sweeps at once, a timer tick that
 * finds one still running is skipped, and closing the hub stops a running sweep between batches.
 */
import type { HubMetrics } from '../metrics/metrics.js';
import { expireLeftPendingApprovals } from '../people/left-pending.js';
import type { HubDeps } from '../services/deps.js';
import { sweep, type SweepReport } from './sweeps.js';

export interface Sweeper {
  /** Sweeps now. A sweep already running is awaited first, so the report is of a sweep started after the call. */
  sweepNow(): Promise<SweepReport>;
  /** Starts the interval timer (unref'd: it never keeps the process alive). */
  start(intervalMs: number): void;
  /** Stops the timer and any running sweep before its next batch; resolves once it has stopped. */
  stop(): Promise<void>;
}

/** The report of a sweep this process left to another one. */
const NOTHING_SWEPT: SweepReport = {
  turnsTimedOut: 0,
  sessionsInactive: 0,
  runsOfStoppedHubs: 0,
  runsInterrupted: 0,
  silentRunsEnded: 0,
  sessionsIdled: 0,
  messagesExpired: 0,
  eventsPruned: 0,
  durationMs: 0,
};

/**
 * Whether a sweep changed what a person sees (a session, run, turn or message). Pruning old events
 * alone does not count: on a busy hub it happens every sweep, and would be an info line a minute.
 */
function changedSomething(report: SweepReport): boolean {
  return Object.entries(report).some(([key, value]) => key !== 'durationMs' && key !== 'eventsPruned' && value > 0);
}

export function createSweeper(deps: HubDeps, metrics: Pick<HubMetrics, 'observeSweep'>): Sweeper {
  const stopping = new AbortController();
  let running: Promise<SweepReport> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const runOnce = (): Promise<SweepReport> => {
    const current = (async () => {
      // one sweep across every hub process sharing the store: the others skip this tick (the ends
      // are safe to run twice anyway; this keeps the cluster from doing the work twice)
      const outcome = await deps.store.tryExclusive('sweep', async () => {
        const report = await sweep(deps, { signal: stopping.signal });
        // approvals left pending by a hub process that died while other processes live on
        if (!stopping.signal.aborted) await expireLeftPendingApprovals(deps, { all: false });
        return report;
      });
      if (!outcome.ran) {
        deps.log.debug('another hub process is sweeping; skipping this one');
        return NOTHING_SWEPT;
      }
      const report = outcome.value;
      metrics.observeSweep(report);
      if (changedSomething(report)) deps.log.info({ sweep: report }, 'sweep changed sessions');
      else deps.log.debug({ sweep: report }, report.eventsPruned > 0 ? 'sweep pruned old events only' : 'sweep found nothing to do');
      return report;
    })();
    running = current;
    const done = () => {
      if (running === current) running = undefined;
    };
    current.then(done, done);
    return current;
  };

  return {
    async sweepNow() {
      // loop: another waiter may have started the next sweep before this one resumed
      while (running) await running.catch(() => undefined);
      return runOnce();
    },
    start(intervalMs) {
      timer = setInterval(() => {
        if (running) {
          deps.log.debug('sweep still running; skipping this tick');
          return;
        }
        runOnce().catch((error: unknown) => deps.log.error({ err: error }, 'sweep failed; will retry on the next interval'));
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      stopping.abort();
      await running?.catch(() => undefined);
    },
  };
}
