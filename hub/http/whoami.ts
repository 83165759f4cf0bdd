import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { RoleSchema } from '../../shared/protocol/auth.js';
import { identityOf, requireToken, type TokenAccess } from './auth.js';

/** `GET /api/whoami`: the role and namespace of the presented token (the dashboard page uses it). */
export const whoamiRoutes: FastifyPluginAsyncZod<{ access: TokenAccess }> = async (app, { access }) => {
  app.get(
    '/api/whoami',
    { onRequest: requireToken(access), schema: { response: { 200: z.object({ role: RoleSchema, namespace: z.string() }) } } },
    async (request) => {
      const { role, namespace } = identityOf(request);
      return { role, namespace };
    },
  );
};
