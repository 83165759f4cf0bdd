import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { RoleSchema } from '../../shared/protocol/auth.js';
import type { TokenRegistry } from '../services/tokens.js';
import { identityOf, requireToken } from './auth.js';

/** `GET /api/whoami`: the role and namespace of the presented token (the dashboard page uses it). */
export const whoamiRoutes: FastifyPluginAsyncZod<{ tokens: TokenRegistry }> = async (app, { tokens }) => {
  app.get(
    '/api/whoami',
    { preHandler: requireToken(tokens), schema: { response: { 200: z.object({ role: RoleSchema, namespace: z.string() }) } } },
    async (request) => {
      const { role, namespace } = identityOf(request);
      return { role, namespace };
    },
  );
};
