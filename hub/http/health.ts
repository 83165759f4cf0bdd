import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { HealthResponseSchema, NotReadyResponseSchema } from '../../shared/protocol/http.js';
import { diskSpaceProblem } from '../store/disk-space.js';
import { checkReadiness } from '../store/readiness.js';
import type { Store } from '../store/sql.js';

/**
 * `GET /healthz` (liveness): no token; answers as long as the process serves HTTP, so a supervisor
 * restarts only a hub that stopped serving, never one waiting out a database outage.
 * `GET /readyz` (readiness): no token; 200 while the store can take a write, else 503
 * `unavailable` with the reason: a load balancer sends runners elsewhere meanwhile. On SQLite, also
 * 503 while the data directory is nearly full (`disk`): an empty write transaction needs no space.
 */
export const healthRoutes: FastifyPluginAsyncZod<{ store: Store; disk?: { dataDir: string; minFreeBytes: number } }> = async (app, { store, disk }) => {
  app.get('/healthz', { schema: { response: { 200: HealthResponseSchema } } }, async () => ({ ok: true as const }));
  app.get('/readyz', { schema: { response: { 200: HealthResponseSchema, 503: NotReadyResponseSchema } } }, async (request, reply) => {
    const readiness = await checkReadiness(store, (error) => request.log.warn({ err: error }, 'readiness probe: the store cannot write'));
    const full = readiness.ok && disk ? diskSpaceProblem(disk.dataDir, disk.minFreeBytes) : undefined;
    if (full !== undefined) return reply.code(503).send({ ok: false as const, error: 'unavailable' as const, message: `not ready: ${full}`, reason: full });
    if (readiness.ok) return { ok: true as const };
    return reply.code(503).send({ ok: false as const, error: 'unavailable' as const, message: `not ready: ${readiness.reason}`, reason: readiness.reason });
  });
};
