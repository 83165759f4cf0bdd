import type { Server as HttpServer } from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { LIMITS } from '../../shared/protocol/limits.js';
import type { Logger } from '../log.js';
import type { HubMetrics } from '../metrics/metrics.js';
import type { Vapid } from '../push/vapid.js';
import type { HubDeps } from '../services/deps.js';
import type { TokenRegistry } from '../services/tokens.js';
import type { SignInCodes } from '../services/sign-in-codes.js';
import type { RateLimiter } from '../socket/rate-limit.js';
import { approvalRoutes } from './approvals.js';
import { dashboardPagePlugin } from './dashboard-page.js';
import { httpErrorHandler, sendError } from './errors.js';
import { healthRoutes } from './health.js';
import { parseJsonBody } from './json-body.js';
import { hookRoutes } from './hooks.js';
import { machineRoutes } from './machines.js';
import { workRoutes } from './work.js';
import { agentSessionRoutes } from './agent-sessions.js';
import { messageRoutes } from './messages.js';
import { metricsRoutes } from './metrics.js';
import { serveOpenApi } from './openapi.js';
import { serveSocketEvents } from './socket-events.js';
import { pushRoutes } from './push.js';
import { sessionRoutes } from './sessions.js';
import { signInRoutes } from './sign-in.js';
import { webhookRoutes } from './webhooks.js';
import { tokenRoutes } from './tokens.js';
import { HookRefusals } from '../services/hook-refusals.js';
import { hookRefusalRoutes } from './hook-refusals.js';
import { usageRoutes } from './usage.js';
import { whoamiRoutes } from './whoami.js';

/**
 * Fastify on a server we own, so Socket.IO can attach to the same server after Fastify's request
 * listener is in place (engine.io then answers /socket.io before Fastify sees it).
 */
export function createHttpApp(server: HttpServer, log: Logger): FastifyInstance {
  const app = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    // one line per request drowns what an operator needs at info: logged at debug below instead
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: LIMITS.maxFrameBytes,
    // a sid may be up to 128 characters (SidParamsSchema); past that the schema answers, not the router
    routerOptions: { maxParamLength: 1024 },
    // a malformed URL (bad %-escape) or an over-long parameter: the spec's body, not Fastify's own
    frameworkErrors: (error, _request, reply) => {
      sendError(reply, 400, 'invalid_payload', error.message);
    },
    serverFactory: (handler) => {
      server.on('request', handler);
      return server;
    },
  });
  // the hub's own JSON parser on every route: depth read on the text first, prototype keys named (json-body.ts)
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(httpErrorHandler);
  // only where it logs: an async hook on every request costs the hub ~5 % of its CPU on hook calls
  if (log.isLevelEnabled('debug')) {
    app.addHook('onResponse', async (request, reply) => {
      request.log.debug({ req: request, statusCode: reply.statusCode, responseTimeMs: Math.round(reply.elapsedTime) }, 'request completed');
    });
  }
  app.setNotFoundHandler((request, reply) => sendError(reply, 404, 'not_found', `no route ${request.method} ${request.url.split('?')[0]}`));
  return app as unknown as FastifyInstance;
}

/** Health, metrics, the session API, the hook route, approvals, machines, usage, the webhook API, push subscriptions, token management, whoami and the dashboard page. */
export function registerHttpRoutes(app: FastifyInstance, input: { deps: HubDeps; tokens: TokenRegistry; limiter: RateLimiter; metrics: HubMetrics; vapid: Vapid; signInCodes: SignInCodes }): void {
  const now = () => input.deps.clock.now();
  const refusals = new HookRefusals({ store: input.deps.store, log: input.deps.log, now });
  const access = { tokens: input.tokens, limiter: input.limiter, now, metrics: input.metrics, refusals };
  // first: it collects the routes registered after it
  serveOpenApi(app);
  serveSocketEvents(app);
  // health checks, scrapes and static files would drown the log; the API's requests are logged
  const { config } = input.deps;
  const disk = config.databaseUrl === undefined ? { dataDir: config.dataDir, minFreeBytes: config.readyMinFreeBytes } : undefined;
  app.register(healthRoutes, { logLevel: 'warn', store: input.deps.store, ...(disk ? { disk } : {}) });
  app.register(metricsRoutes, { logLevel: 'warn', registry: input.metrics.registry });
  app.register(whoamiRoutes, { access });
  app.register(sessionRoutes, { deps: input.deps, access });
  app.register(webhookRoutes, { deps: input.deps, access });
  app.register(pushRoutes, { deps: input.deps, access, vapid: input.vapid });
  app.register(tokenRoutes, { deps: input.deps, access, tokens: input.tokens });
  app.register(approvalRoutes, { deps: input.deps, access });
  app.register(usageRoutes, { deps: input.deps, access });
  app.register(hookRoutes, { deps: input.deps, access });
  app.register(hookRefusalRoutes, { deps: input.deps, access });
  app.register(messageRoutes, { deps: input.deps, access });
  app.register(machineRoutes, { deps: input.deps, access });
  app.register(workRoutes, { deps: input.deps, access });
  app.register(agentSessionRoutes, { deps: input.deps, access });
  app.register(signInRoutes, { deps: input.deps, tokens: input.tokens, codes: input.signInCodes });
  app.register(dashboardPagePlugin, { logLevel: 'warn' });
}
