import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { HealthResponseSchema } from '../../shared/protocol/http.js';

/** `GET /healthz`: no token; answers as long as the process serves HTTP. */
export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/healthz', { schema: { response: { 200: HealthResponseSchema } } }, async () => ({ ok: true as const }));
};
