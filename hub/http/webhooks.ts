import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  CreateWebhookRequestSchema,
  CreateWebhookResponseSchema,
  ListWebhooksResponseSchema,
  RemoveWebhookResponseSchema,
  WebhookParamsSchema,
  WebhookSchema,
} from '../../shared/protocol/webhooks.js';
import type { HubDeps } from '../services/deps.js';
import { createWebhook, removeWebhook, unpauseWebhook } from '../services/webhooks.js';
import { listWebhooks } from '../store/webhooks.js';
import { identityOf, requireToken, type TokenAccess } from './auth.js';
import { sendError } from './errors.js';

const notFound = (id: string) => `no webhook ${id} in this namespace (session-hub webhook list shows them)`;

/** The admin API of webhooks: an admin token manages its own namespace's webhooks only. */
export const webhookRoutes: FastifyPluginAsyncZod<{ deps: HubDeps; access: TokenAccess }> = async (app, { deps, access }) => {
  const adminOnly = requireToken(access, ['admin']);

  app.get('/api/webhooks', { onRequest: adminOnly, schema: { response: { 200: ListWebhooksResponseSchema } } }, async (request) => ({
    webhooks: await listWebhooks(deps.store, identityOf(request).namespace),
  }));

  app.post(
    '/api/webhooks',
    { onRequest: adminOnly, schema: { body: CreateWebhookRequestSchema, response: { 201: CreateWebhookResponseSchema } } },
    async (request, reply) => {
      const created = await createWebhook(deps.store, { ...request.body, namespace: identityOf(request).namespace, now: deps.clock.now() });
      return reply.code(201).send(created);
    },
  );

  app.delete(
    '/api/webhooks/:id',
    { onRequest: adminOnly, schema: { params: WebhookParamsSchema, response: { 200: RemoveWebhookResponseSchema } } },
    async (request, reply) => {
      const { id } = request.params;
      if (!(await removeWebhook(deps.store, { id, namespace: identityOf(request).namespace }))) return sendError(reply, 404, 'webhook_not_found', notFound(id));
      return { removed: id };
    },
  );

  app.post(
    '/api/webhooks/:id/resume',
    { onRequest: adminOnly, schema: { params: WebhookParamsSchema, response: { 200: WebhookSchema } } },
    async (request, reply) => {
      const { id } = request.params;
      const webhook = await unpauseWebhook(deps.store, { id, namespace: identityOf(request).namespace });
      return webhook ?? sendError(reply, 404, 'webhook_not_found', notFound(id));
    },
  );
};
