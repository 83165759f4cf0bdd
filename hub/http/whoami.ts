import { homedir, hostname } from 'node:os';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { RoleSchema } from '../../shared/protocol/auth.js';
import { identityOf, requireToken, type TokenAccess } from './auth.js';

/**
 * `GET /api/whoami`: the role and namespace of the presented token (the dashboard page uses it;
 * `session-hub login` checks a token with it). Every role, `agent` included: it names no session.
 */
export const whoamiRoutes: FastifyPluginAsyncZod<{ access: TokenAccess }> = async (app, { access }) => {
  app.get(
    '/api/whoami',
    { onRequest: requireToken(access, RoleSchema.options), schema: { response: { 200: z.object({ role: RoleSchema, namespace: z.string() }) } } },
    async (request) => {
      const { role, namespace } = identityOf(request);
      return { role, namespace };
    },
  );
  // The hub's host name and home folder: the page shows paths under that home as `~/...` for
  // sessions on the hub's host (docs/dashboard.md). Behind a token: a home folder names a user.
  app.get(
    '/api/host',
    { onRequest: requireToken(access), schema: { response: { 200: z.object({ host: z.string().nullable(), home: z.string().nullable() }) } } },
    async () => ({ host: hostname() || null, home: homedir() || null }),
  );
};
