import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { DECIDING_ROLES, REPORTING_ROLES } from '../../shared/protocol/auth.js';
import { SidParamsSchema } from '../../shared/protocol/http.js';
import { HookWaitRequestSchema, HookWaitResponseSchema, MESSAGE_MAX_BYTES, MessageParamsSchema, MessageResponseSchema, MessagesResponseSchema, PostMessageRequestSchema } from '../../shared/protocol/messages.js';
import type { Actor, HubDeps } from '../services/deps.js';
import { cancelMessage, queueMessage } from '../people/messages.js';
import { requireSession } from '../services/require-session.js';
import { tokenIdOf, type TokenIdentity } from '../services/tokens.js';
import { reachOf } from '../people/message-reach.js';
import { waitForMessages } from '../people/message-wait.js';
import { listMessages } from '../store/messages.js';
import { identityOf, requireToken, type TokenAccess } from './auth.js';

const personOf = (identity: TokenIdentity): Actor => ({ namespace: identity.namespace, role: identity.role, by: 'user' });

/** The sending token as a message records it: its public id, and its label where it has one (stored tokens). */
function senderOf(identity: TokenIdentity): { tokenId: string; label: string | null } {
  return { tokenId: tokenIdOf(identity.tokenHash), label: identity.label ?? null };
}

/**
 * A person's messages to the agent (docs/messages.md): operator and admin tokens send and cancel,
 * any token of the tenant reads. Another tenant's session or message is absent (404).
 */
export const messageRoutes: FastifyPluginAsyncZod<{ deps: HubDeps; access: TokenAccess }> = async (app, { deps, access }) => {
  app.post(
    '/api/sessions/:sid/messages',
    {
      onRequest: requireToken(access, DECIDING_ROLES),
      // room for the longest text JSON-escaped, so an oversized one is answered 400 by the schema, not 413
      bodyLimit: MESSAGE_MAX_BYTES * 2 + 1024,
      schema: { params: SidParamsSchema, body: PostMessageRequestSchema, response: { 201: MessageResponseSchema } },
    },
    async (request, reply) => {
      const identity = identityOf(request);
      const message = await queueMessage(deps, personOf(identity), { sid: request.params.sid, text: request.body.text, by: senderOf(identity) });
      return reply.code(201).send({ message });
    },
  );

  app.get(
    '/api/sessions/:sid/messages',
    { onRequest: requireToken(access), schema: { params: SidParamsSchema, response: { 200: MessagesResponseSchema } } },
    async (request) => {
      const session = await requireSession(deps.store, identityOf(request), request.params.sid);
      return { sid: session.sid, messages: await listMessages(deps.store, session.sid), ...(await reachOf(deps.store, session, deps.clock.now())) };
    },
  );

  app.delete(
    '/api/sessions/:sid/messages/:messageId',
    { onRequest: requireToken(access, DECIDING_ROLES), schema: { params: MessageParamsSchema, response: { 200: MessageResponseSchema } } },
    async (request) => ({ message: await cancelMessage(deps, personOf(identityOf(request)), request.params) }),
  );

  /** The hook bridge's background waiter (runner token): answers when a message came, a newer waiter replaced it, or the wait ran out. */
  app.post(
    '/api/hooks/wait',
    { onRequest: requireToken(access, REPORTING_ROLES), schema: { body: HookWaitRequestSchema, response: { 200: HookWaitResponseSchema } } },
    async (request) => {
      const { namespace, role } = identityOf(request);
      return waitForMessages(deps, { namespace, role, by: role === 'admin' ? 'user' : 'runner' }, request.body);
    },
  );
};
