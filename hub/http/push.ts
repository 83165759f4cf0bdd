import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { RoleSchema, type Role } from '../../shared/protocol/auth.js';
import {
  PushKeyResponseSchema,
  PushRemovedResponseSchema,
  PushSubscribedResponseSchema,
  PushSubscriptionSchema,
  PushUnsubscribeSchema,
} from '../../shared/protocol/push.js';
import type { Vapid } from '../push/vapid.js';
import type { HubDeps } from '../services/deps.js';
import { tokenIdOf } from '../services/tokens.js';
import { subscribePush } from '../services/push.js';
import { removeSubscription } from '../store/push.js';
import { identityOf, requireToken, type TokenAccess } from './auth.js';
import { sendError } from './errors.js';

/** Every role but `runner` and `machine` (dashboard, admin, and operator where that role exists): the roles people sign in with. */
const PEOPLE_ROLES: readonly Role[] = RoleSchema.options.filter((role) => role !== 'runner' && role !== 'machine');

/**
 * Web Push subscriptions (docs/attention.md, "Browser push"): a person's browser, through a token
 * that may watch sessions, asks to be pinged when a session of that token's namespace needs them.
 * Runner tokens belong to agents, not people: 403.
 */
export const pushRoutes: FastifyPluginAsyncZod<{ deps: HubDeps; access: TokenAccess; vapid: Vapid }> = async (app, { deps, access, vapid }) => {
  const watchers = requireToken(access, PEOPLE_ROLES);

  app.get('/api/push/key', { onRequest: watchers, schema: { response: { 200: PushKeyResponseSchema } } }, async () => ({ publicKey: vapid.publicKey }));

  app.post(
    '/api/push/subscriptions',
    { onRequest: watchers, schema: { body: PushSubscriptionSchema, response: { 201: PushSubscribedResponseSchema } } },
    async (request, reply) => {
      const identity = identityOf(request);
      const { endpoint, keys } = request.body;
      await subscribePush(deps.store, { endpoint, ...keys, namespace: identity.namespace, tokenId: tokenIdOf(identity.tokenHash), now: deps.clock.now() });
      return reply.code(201).send({ subscribed: endpoint });
    },
  );

  app.delete(
    '/api/push/subscriptions',
    { onRequest: watchers, schema: { body: PushUnsubscribeSchema, response: { 200: PushRemovedResponseSchema } } },
    async (request, reply) => {
      const { endpoint } = request.body;
      if (!(await removeSubscription(deps.store, { endpoint, namespace: identityOf(request).namespace }))) {
        return sendError(reply, 404, 'not_found', 'no push subscription with that endpoint in this namespace');
      }
      return { removed: endpoint };
    },
  );
};
