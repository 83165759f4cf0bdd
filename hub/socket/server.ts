import type { Server as HttpServer } from 'node:http';
import { Server } from 'socket.io';
import { HANDSHAKE_ERRORS, HandshakeAuthSchema, WATCH_ONLY_ROLES } from '../../shared/protocol/auth.js';
import { LIMITS } from '../../shared/protocol/limits.js';
import type { RunnerBindings } from '../lifecycle/bindings.js';
import type { Logger } from '../log.js';
import type { HubMetrics } from '../metrics/metrics.js';
import type { HubDeps } from '../services/deps.js';
import type { TokenRegistry } from '../services/tokens.js';
import { registerDashboardHandlers } from './dashboard-handlers.js';
import { FairWebSocketServer } from './fair-websocket-server.js';
import { InFlightEvents } from './in-flight-events.js';
import type { RateLimiter } from './rate-limit.js';
import { registerMachineHandlers } from './machine-handlers.js';
import { registerRunnerHandlers } from './runner-handlers.js';
import { answerUnhandledEvents } from './unhandled-events.js';
import type { DashboardNamespace, HubServer, RunnerNamespace, SocketData } from './types.js';

export interface SocketServer {
  io: HubServer;
  runners: RunnerNamespace;
  dashboards: DashboardNamespace;
  /** The open Engine.IO connections (a shutdown closes them after their last acks are sent). */
  connections: Set<EngineSocket>;
}

type EngineSocket = Parameters<Parameters<HubServer['engine']['on']>[1]>[0];

/** The Socket.IO server on the hub's HTTP server, with its two namespaces; handlers come later. */
export function createSocketServer(httpServer: HttpServer): SocketServer {
  const io: HubServer = new Server(httpServer, {
    // frames up to 2 MiB reach validation, so an oversized document is answered, not disconnected
    maxHttpBufferSize: LIMITS.maxFrameBytes,
    serveClient: true,
    pingInterval: 10_000,
    pingTimeout: 10_000,
    wsEngine: FairWebSocketServer,
  });
  io.of('/').use((_socket, next) => next(new Error('use the /runner or /dashboard namespace')));
  const connections = new Set<EngineSocket>();
  io.engine.on('connection', (connection: EngineSocket) => {
    connections.add(connection);
    connection.once('close', () => connections.delete(connection));
  });
  return { io, runners: io.of('/runner') as unknown as RunnerNamespace, dashboards: io.of('/dashboard') as unknown as DashboardNamespace, connections };
}

/**
 * Closes every client connection once what it still has to send (acks) is sent, waiting at most
 * `maxWaitMs`. `io.close()` alone discards a connection's unsent packets. A transport close, not a
 * namespace disconnect: clients reconnect on their own to the next hub.
 */
export async function closeConnections(server: SocketServer, maxWaitMs: number): Promise<void> {
  const closed = [...server.connections].map((connection) => new Promise<void>((resolve) => {
    connection.once('close', () => resolve());
    connection.close();
  }));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(closed), new Promise<void>((resolve) => (timer = setTimeout(resolve, maxWaitMs).unref()))]);
  clearTimeout(timer);
}

export interface SocketHandlerDeps {
  deps: HubDeps;
  tokens: TokenRegistry;
  bindings: RunnerBindings;
  log: Logger;
  metrics: HubMetrics;
  /** Per-socket and per-token buckets; the per-token ones are shared with HTTP. */
  limiter: RateLimiter;
}

/**
 * The seq a client asked to replay from. One that is not a seq at all cannot be honoured, so it
 * counts as a seq beyond the latest: the client is answered `resync { reason: 'gap' }` and refetches.
 * null means the same as leaving it out.
 */
function replayFrom(lastSeq: unknown): number | undefined {
  if (lastSeq === undefined || lastSeq === null) return undefined;
  const parsed = HandshakeAuthSchema.shape.lastSeq.safeParse(lastSeq);
  return parsed.success ? parsed.data : Number.POSITIVE_INFINITY;
}

/** Handshake auth for a namespace: a known token, of a role allowed there. */
function authenticate(namespace: RunnerNamespace | DashboardNamespace, which: 'runner' | 'dashboard', ctx: SocketHandlerDeps, limiter: RateLimiter) {
  namespace.use(async (socket, next) => {
    // token and lastSeq are read apart: a malformed lastSeq must not make a good token "unauthorized"
    const auth = (socket.handshake.auth ?? {}) as Record<string, unknown>;
    const token = HandshakeAuthSchema.shape.token.safeParse(auth.token);
    let identity: Awaited<ReturnType<TokenRegistry['verify']>>;
    try {
      identity = await ctx.tokens.verify(token.success ? token.data : undefined);
    } catch (error) {
      // the stored tokens could not be re-read: refuse this handshake, the client retries
      ctx.log.error({ err: error, namespace: which }, 'handshake failed: could not read tokens');
      return next(new Error(HANDSHAKE_ERRORS.unauthorized));
    }
    if (!identity) {
      ctx.log.info({ namespace: which, address: socket.handshake.address }, 'handshake refused: unauthorized');
      return next(new Error(HANDSHAKE_ERRORS.unauthorized));
    }
    if (which === 'runner' && WATCH_ONLY_ROLES.includes(identity.role)) {
      ctx.log.info({ namespace: which, tenant: identity.namespace, role: identity.role }, 'handshake refused: watch-only token on /runner');
      return next(new Error(HANDSHAKE_ERRORS.forbidden));
    }
    const data: SocketData = {
      identity,
      lastSeq: replayFrom(auth.lastSeq),
      log: ctx.log.child({ socketId: socket.id, ns: which, tenant: identity.namespace, role: identity.role }),
      bucket: limiter.forSocket(ctx.deps.clock.now()),
      flood: { streakStart: 0, lastRefusal: Number.NEGATIVE_INFINITY },
    };
    socket.data = data;
    next();
  });
}

/** Returns the events in flight, which a shutdown lets finish before it closes the sockets. */
export function attachSocketHandlers(server: SocketServer, ctx: SocketHandlerDeps): InFlightEvents {
  const { limiter } = ctx;
  const inFlight = new InFlightEvents();
  const options = { limiter, now: () => ctx.deps.clock.now(), metrics: ctx.metrics };
  const { connected } = ctx.metrics;
  authenticate(server.runners, 'runner', ctx, limiter);
  authenticate(server.dashboards, 'dashboard', ctx, limiter);
  server.runners.on('connection', (socket) => {
    socket.data.log.debug('runner connected');
    inFlight.track(socket);
    connected.inc({ kind: 'runner' });
    socket.once('disconnect', () => connected.dec({ kind: 'runner' }));
    registerRunnerHandlers(socket, ctx.deps, ctx.bindings, options);
    registerMachineHandlers(socket, server.runners, ctx.deps, options);
    answerUnhandledEvents(socket, '/runner');
  });
  server.dashboards.on('connection', (socket) => {
    socket.data.log.debug('dashboard connected');
    inFlight.track(socket);
    connected.inc({ kind: 'dashboard' });
    socket.once('disconnect', () => connected.dec({ kind: 'dashboard' }));
    registerDashboardHandlers(socket, ctx.deps, options);
    answerUnhandledEvents(socket, '/dashboard');
  });
  return inFlight;
}

/** This process's sockets by token (for the token watch: last use, and cutting a revoked token's sockets). */
export function tokenHolders(server: SocketServer) {
  const sockets = () => [...server.runners.sockets.values(), ...server.dashboards.sockets.values()];
  return {
    liveTokenHashes: () => new Set(sockets().map((socket) => socket.data.identity.tokenHash)),
    cut(tokenHashes: Set<string>) {
      for (const socket of sockets()) {
        if (!tokenHashes.has(socket.data.identity.tokenHash)) continue;
        socket.emit('error', { code: 'unauthorized', message: 'this token was revoked or has expired', event: 'connection' });
        // a namespace disconnect: the client does not reconnect by itself with a token now refused
        socket.disconnect();
      }
    },
  };
}
