/**
 * The composition root: store → services → Socket.IO and HTTP, in that order, so nothing is
 * looked up later or left null. `startHub` is what the CLI and the tests call.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Role } from '../shared/protocol/auth.js';
import { systemClock, type Clock } from './clock.js';
import type { HubConfig } from './config.js';
import { createHttpApp, registerHttpRoutes } from './http/app.js';
import { RunnerBindings } from './lifecycle/bindings.js';
import { sweep, type SweepReport } from './lifecycle/sweeps.js';
import { createLogger, type Logger } from './log.js';
import { createMetrics } from './metrics/metrics.js';
import type { HubDeps } from './services/deps.js';
import { loadTokens } from './services/tokens.js';
import { attachSocketHandlers, createSocketServer } from './socket/server.js';
import { createPublisher } from './socket/publisher.js';
import { openDatabase } from './store/db.js';
import { markLiveRunsDisconnected } from './store/runs.js';

export interface RunningHub {
  url: string;
  port: number;
  deps: HubDeps;
  /** Tokens created on this start (first start without SESSION_HUB_TOKENS); shown once. */
  generatedTokens: { role: Role; namespace: string; token: string }[];
  sweepNow(): SweepReport;
  close(): Promise<void>;
}

function sweepChangedSomething(report: SweepReport): boolean {
  return report.turnsTimedOut + report.sessionsInactive + report.runsInterrupted + report.silentRunsEnded + report.sessionsIdled + report.eventsPruned > 0;
}

export async function startHub(config: HubConfig, options: { log?: Logger; clock?: Clock } = {}): Promise<RunningHub> {
  const log = options.log ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;

  const db = openDatabase(config.databaseFile);
  const { registry: tokens, generated } = loadTokens(db, config.tokens, clock.now());
  // Runs left running by an earlier process: their runners get the full grace from now to come back.
  const carriedOver = markLiveRunsDisconnected(db, { at: clock.now() });

  const server = createServer();
  const app = createHttpApp(server, log);
  const sockets = createSocketServer(server);
  // one registry per hub: in-process test hubs never share prom-client's global one
  const metrics = createMetrics();
  const deps: HubDeps = { db, clock, config, log, publisher: createPublisher(sockets.runners, sockets.dashboards, metrics) };
  const bindings = new RunnerBindings();
  attachSocketHandlers(sockets, { deps, tokens, bindings, log, metrics });
  registerHttpRoutes(app, { deps, tokens, metrics });

  const runSweep = (): SweepReport => {
    const report = sweep(deps);
    metrics.observeSweep(report);
    if (sweepChangedSomething(report)) log.info({ sweep: report }, 'sweep changed sessions');
    else log.debug({ sweep: report }, 'sweep found nothing to do');
    return report;
  };
  runSweep();
  const timer = setInterval(() => {
    try {
      runSweep();
    } catch (error) {
      log.error({ err: error }, 'sweep failed; will retry on the next interval');
    }
  }, config.sweepMs);
  timer.unref();

  await app.listen({ host: config.host, port: config.port });
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  log.info({ url, database: config.databaseFile, tokens: tokens.size, runsAwaitingRunners: carriedOver }, `session hub listening on ${url}`);

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      log.info('shutting down: closing sockets, HTTP and the database');
      clearInterval(timer);
      await new Promise<void>((resolve) => sockets.io.close(() => resolve()));
      await app.close();
      db.close();
      log.info('stopped');
    })());

  return { url, port, deps, generatedTokens: generated, sweepNow: runSweep, close };
}
