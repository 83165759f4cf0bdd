import type { FastifyPluginAsync } from 'fastify';
import type { Registry } from 'prom-client';

/**
 * `GET /metrics` (spec section 12): Prometheus text without a token. Safe to leave open because the
 * registry holds counts and timings only, labelled by event name, result and kind.
 */
export const metricsRoutes: FastifyPluginAsync<{ registry: Registry }> = async (app, { registry }) => {
  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
};
