import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  CreateTokenRequestSchema,
  CreateTokenResponseSchema,
  durationMs,
  ListTokensResponseSchema,
  TokenIdParamsSchema,
  TokenInfoSchema,
} from '../../shared/protocol/tokens.js';
import type { HubDeps } from '../services/deps.js';
import { mintToken, revokeStoredToken, tokenInfo, type TokenRegistry } from '../services/tokens.js';
import { listTokens } from '../store/tokens.js';
import { identityOf, requireToken, type TokenAccess } from './auth.js';
import { sendError } from './errors.js';

/**
 * Token lifecycle for admins, within their own namespace: list, create (the secret is in the answer
 * only), revoke. Tokens given by SESSION_HUB_TOKENS are not stored and cannot be managed: 409.
 */
export const tokenRoutes: FastifyPluginAsyncZod<{ deps: HubDeps; access: TokenAccess; tokens: TokenRegistry }> = async (app, { deps, access, tokens }) => {
  const adminOnly = requireToken(access, ['admin']);
  app.addHook('preHandler', async (_request, reply) => {
    if (deps.config.tokens?.trim()) {
      return sendError(reply, 409, 'conflict', 'this hub takes its tokens from SESSION_HUB_TOKENS: change that setting to add or remove one');
    }
  });

  app.get('/api/tokens', { onRequest: adminOnly, schema: { response: { 200: ListTokensResponseSchema } } }, async (request) => {
    const stored = await listTokens(deps.store, { namespace: identityOf(request).namespace });
    return { tokens: stored.map(tokenInfo) };
  });

  app.post(
    '/api/tokens',
    { onRequest: adminOnly, schema: { body: CreateTokenRequestSchema, response: { 201: CreateTokenResponseSchema } } },
    async (request, reply) => {
      const { namespace } = identityOf(request);
      const now = deps.clock.now();
      const { expiresIn, role } = request.body;
      const label = request.body.label ?? null;
      const expiresAt = expiresIn === undefined ? null : now + durationMs(expiresIn)!;
      const { token, stored } = await mintToken(deps.store, { role, namespace, source: 'api', now, expiresAt, label });
      // accepted by this process at once; the others read it on their next miss or refresh
      tokens.add({ role, namespace, tokenHash: stored.tokenHash, expiresAt, label });
      request.log.info({ tokenId: stored.id, role, tenant: namespace }, 'token created');
      return reply.code(201).send({ ...tokenInfo(stored), token });
    },
  );

  app.delete(
    '/api/tokens/:id',
    { onRequest: adminOnly, schema: { params: TokenIdParamsSchema, response: { 200: TokenInfoSchema } } },
    async (request, reply) => {
      const { namespace } = identityOf(request);
      const revoked = await revokeStoredToken(deps.store, { id: request.params.id, namespace, now: deps.clock.now() });
      if (!revoked) return sendError(reply, 404, 'not_found', `no token ${request.params.id} in namespace "${namespace}"`);
      // refused by this process from now on, its sockets cut and its waits ended (main.ts listens)
      tokens.forget(revoked.tokenHash);
      request.log.info({ tokenId: revoked.id, tenant: namespace }, 'token revoked');
      return tokenInfo(revoked);
    },
  );
};
