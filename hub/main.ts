/**
 * The composition root: store → services → Socket.IO and HTTP, in that order, so nothing is
 * looked up later or left null. `startHub` is what the CLI and the tests call.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock, type Clock } from './clock.js';
import { deregisterHub, startHeartbeat } from './cluster/heartbeat.js';
import { attachRedisAdapter } from './cluster/redis-adapter.js';
import { createClusterRunnerPresence } from './socket/runner-presence.js';
import { createClusterWaiterPresence } from './socket/waiter-presence.js';
import type { HubConfig } from './config.js';
import { createHttpApp, registerHttpRoutes } from './http/app.js';
import { RunnerBindings } from './lifecycle/bindings.js';
import { carryOverLiveRuns } from './lifecycle/boot-grace.js';
import { createSweeper } from './lifecycle/sweeper.js';
import { HUB_PRESUMED_DEAD_AFTER_HEARTBEATS, type SweepReport } from './lifecycle/sweeps.js';
import { createLogger, type Logger } from './log.js';
import { createMetrics } from './metrics/metrics.js';
import { createPushMetrics } from './push/metrics.js';
import { createPusher } from './push/pusher.js';
import { loadVapid } from './push/vapid.js';
import { releaseApprovalWaiters } from './people/approval-waiters.js';
import { releaseMessageWaiters } from './people/message-waiters.js';
import { createMessageCourier } from './socket/message-courier.js';
import { expireLeftPendingApprovals } from './people/left-pending.js';
import { runWrite } from './services/changes.js';
import type { HubDeps } from './services/deps.js';
import { watchTokens } from './services/token-watch.js';
import { SignInCodes } from './services/sign-in-codes.js';
import { loadTokens, mintFirstTokens, type PlainToken } from './services/tokens.js';
import { createClusterPublisher } from './socket/cluster-publisher.js';
import { createPublisher } from './socket/publisher.js';
import { RateLimiter } from './socket/rate-limit.js';
import { createMachineLink } from './socket/machine-link.js';
import { attachSocketHandlers, closeConnections, createSocketServer, tokenHolders } from './socket/server.js';
import { namespaceSeqState, readEventsSince } from './store/events.js';
import { countAliveHubs } from './store/hubs.js';
import { describeStore, openStore } from './store/open-store.js';
import { prepareDataDir } from './store/sqlite/data-dir.js';
import { lockDataDir } from './store/sqlite/data-dir-lock.js';
import { createWebhookDeliverer } from './webhooks/deliverer.js';
import { createWebhookMetrics } from './webhooks/metrics.js';
import { loadPrices } from './usage/prices.js';

/** How long a shutdown waits for open HTTP connections before closing them. */
const SHUTDOWN_GRACE_MS = 2000;

export interface RunningHub {
  url: string;
  port: number;
  deps: HubDeps;
  /** Tokens created on this start (first start without SESSION_HUB_TOKENS); shown once. */
  generatedTokens: PlainToken[];
  /** The start-up sign-in link: `<url>/?code=…`, one use, within 10 minutes (docs/security.md). */
  signInLink: { url: string; expiresAt: number };
  /** Issues another one-time sign-in code for this process. */
  issueSignInLink(): { url: string; expiresAt: number };
  /** Runs a sweep now (after the one running, if any); see lifecycle/sweeper.ts. */
  sweepNow(): Promise<SweepReport>;
  close(): Promise<void>;
}

export async function startHub(config: HubConfig, options: { log?: Logger; clock?: Clock } = {}): Promise<RunningHub> {
  // what a start opened, undone newest first when a later step fails (a port in use is found only
  // after migrations and the boot sweep): the caller may live on, and hub.lock must not outlive it
  const opened: (() => unknown)[] = [];
  try {
    return await bootHub(config, options, opened);
  } catch (error) {
    for (const undo of opened.reverse()) await Promise.resolve().then(undo).catch(() => undefined);
    throw error;
  }
}

async function bootHub(config: HubConfig, options: { log?: Logger; clock?: Clock }, opened: (() => unknown)[]): Promise<RunningHub> {
  const log = options.log ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;

  // one process per SQLite data directory (several processes share PostgreSQL instead)
  // the directory is checked first: an unusable one is named at once, before anything opens in it
  if (config.databaseUrl === undefined) prepareDataDir(config.dataDir);
  // a bad price file stops the start before anything is opened in the directory (docs/usage.md)
  const prices = loadPrices(config.dataDir);
  const dataDirLock = config.databaseUrl === undefined ? lockDataDir(config.dataDir) : undefined;
  opened.push(() => dataDirLock?.release());
  const store = await openStore(config, log);
  opened.push(() => store.close());
  const hubId = randomUUID();
  const tokens = await loadTokens(store, config.tokens, () => clock.now());
  const vapid = await loadVapid(store, config, clock.now());
  const carriedOver = await carryOverLiveRuns(store, { hubId, now: clock.now(), heartbeatMs: config.heartbeatMs });

  // slow or idle clients cannot hold sockets for ever, nor open without bound (issue 33.6; config.ts);
  // connections are checked every second, so a slow header is cut within a second of its timeout
  const server = createServer({ headersTimeout: config.headersTimeoutMs, requestTimeout: config.requestTimeoutMs, connectionsCheckingInterval: 1000 });
  server.maxConnections = config.maxConnections;
  const app = createHttpApp(server, log);
  const sockets = createSocketServer(server);
  // one registry per hub: in-process test hubs never share prom-client's global one
  const metrics = createMetrics();
  // with Redis, broadcasts cross processes: the adapter carries committed events to every process,
  // and each delivers to its own sockets in seq order
  opened.push(() => new Promise<void>((resolve) => sockets.io.close(() => resolve())));
  const redis = config.redisUrl === undefined ? undefined : await attachRedisAdapter(sockets.io, config.redisUrl, log);
  opened.push(() => redis?.close());
  const publisher = redis
    ? createClusterPublisher({ ...sockets, metrics, log, readEventsSince: (input) => readEventsSince(store, input), readCommittedSeq: async (namespace) => (await namespaceSeqState(store, namespace)).lastSeq })
    : createPublisher(sockets.runners, sockets.dashboards, metrics);
  const bindings = new RunnerBindings();
  const runnerPresence = redis ? createClusterRunnerPresence({ runners: sockets.runners, bindings, hubId, log }) : undefined;
  const courier = createMessageCourier(sockets.runners);
  const machines = createMachineLink(sockets.runners, { cluster: redis !== undefined, log });
  // answers for this process's waiters, which live in `deps` (set just below)
  let local: HubDeps | undefined;
  const waiterPresence = redis ? createClusterWaiterPresence({ runners: sockets.runners, local: () => local, log }) : undefined;
  const deps: HubDeps = { store, hubId, clock, config, log, publisher, runnerPresence, waiterPresence, prices, courier, machines };
  local = deps;
  opened.push(() => deregisterHub(deps), () => runnerPresence?.close(), () => waiterPresence?.close(), () => machines.close(), () => publisher.close?.());
  // one bucket per token, whether it calls over a socket or over HTTP (spec section 12)
  const limiter = new RateLimiter(
    { ratePerSecond: config.rateLimitPerSecond, burst: config.rateLimitBurst },
    { ratePerSecond: config.tokenRateLimitPerSecond, burst: config.tokenRateLimitBurst },
  );
  const inFlight = attachSocketHandlers(sockets, { deps, tokens, bindings, log, metrics, limiter });
  const signInCodes = new SignInCodes();
  registerHttpRoutes(app, { deps, tokens, limiter, metrics, vapid, signInCodes });

  const sweeper = createSweeper(deps, metrics);
  opened.push(() => sweeper.stop());
  // The boot sweep finishes before the hub listens: no client ever sees state it is about to change.
  // A big backlog (a long outage) delays the start; a sweep longer than a second logs its progress.
  await sweeper.sweepNow();
  // approvals left pending by a stopped or killed process have no waiter: when no other process is
  // alive, every one; in a cluster, those past their waiter's end (docs/attention.md)
  const alone = store.dialect === 'sqlite' || (await countAliveHubs(store, { aliveSince: clock.now() - HUB_PRESUMED_DEAD_AFTER_HEARTBEATS * config.heartbeatMs })) <= 1;
  const approvalsExpired = await expireLeftPendingApprovals(deps, { all: alone });
  if (approvalsExpired > 0) log.info({ approvalsExpired }, 'approvals left pending by a stopped hub expired');
  sweeper.start(config.sweepMs);
  const heartbeat = startHeartbeat(deps, config.heartbeatMs);
  opened.push(() => heartbeat.stop());
  // webhooks: one process of a cluster delivers (webhooks/deliverer.ts)
  const webhooks = createWebhookDeliverer(deps, createWebhookMetrics(metrics.registry, store));
  opened.push(() => webhooks.stop());
  // web pushes on attention changes: one process of a cluster sends (push/pusher.ts)
  const pusher = createPusher(deps, vapid, createPushMetrics(metrics.registry));
  opened.push(() => pusher.stop());
  // a token revoked here (at once) or found gone by the watch: its sockets cut (its HTTP waits end by their own signal)
  const holders = tokenHolders(sockets);
  tokens.onGone((tokenHashes) => holders.cut(tokenHashes));
  // stored tokens change under a running hub (revoke, expiry); environment tokens never do
  const tokenWatch = config.tokens?.trim() ? undefined : watchTokens({ tokens, store, holders, log });
  opened.push(() => tokenWatch?.stop());

  // listened on directly, not through app.listen: Fastify would log its own line per address, and
  // the spec wants one line with the URL (ours, below)
  await app.ready();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: config.host, port: config.port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  // minted only now that the hub listens: a start that fails before never mints tokens it cannot print
  const generated = await mintFirstTokens(store, tokens, config.tokens, clock.now());
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  webhooks.start();
  pusher.start();
  const issueSignInLink = () => {
    const { code, expiresAt } = signInCodes.issue(clock.now());
    return { url: `${url}/?code=${code}`, expiresAt };
  };
  const signInLink = issueSignInLink();
  log.info(
    { url, database: describeStore(config), sync: config.databaseUrl === undefined ? config.sync : 'postgresql', redis: redis !== undefined, hubId, tokens: tokens.size, runsAwaitingRunners: carriedOver },
    `session hub listening on ${url}`,
  );

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      log.info('shutting down: closing sockets, HTTP and the database');
      await sweeper.stop();
      await webhooks.stop();
      await pusher.stop();
      await heartbeat.stop();
      await tokenWatch?.stop();
      publisher.close?.();
      runnerPresence?.close();
      // hook processes and runners waiting for a decision get their answer now (ask again: interrupted), not at the wait's end
      releaseApprovalWaiters(deps);
      // and those waiting for a person's message answer with none
      releaseMessageWaiters(deps);
      // a connection that stays open (a browser's keep-alive or a long-poll caught mid-upgrade) must
      // not hold the shutdown: what is in flight gets this long, then every connection is closed
      const forceClose = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      forceClose.unref();
      // the events being handled get their acks before the sockets close (a write stored with no
      // ack would be retried against itself); events arriving from now on are dropped unanswered
      await inFlight.close(SHUTDOWN_GRACE_MS);
      await closeConnections(sockets, SHUTDOWN_GRACE_MS);
      await new Promise<void>((resolve) => sockets.io.close(() => resolve()));
      await runnerPresence?.drain();
      // the writes in flight (and the disconnects the close just caused) commit before the store
      // closes: batches commit in order, so an empty unit of work settles after all of them
      await runWrite(deps, async () => undefined).catch((error: unknown) => log.error({ err: error }, 'last writes failed at shutdown'));
      await app.close();
      clearTimeout(forceClose);
      await redis?.close();
      // the runner sockets' runs were marked disconnected as they closed; any left are marked now,
      // before this process leaves the hubs table (the sweeps find dead processes' runs through it)
      await deregisterHub(deps).catch((error: unknown) => log.warn({ err: error }, 'could not deregister this hub'));
      await store.close();
      dataDirLock?.release();
      log.info('stopped');
    })());

  return { url, port, deps, generatedTokens: generated, signInLink, issueSignInLink, sweepNow: () => sweeper.sweepNow(), close };
}
