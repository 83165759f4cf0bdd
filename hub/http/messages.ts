import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { DECIDING_ROLES, HOOK_ROLES } from '../../shared/protocol/auth.js';
import { SidParamsSchema } from '../../shared/protocol/http.js';
import {
  HookWaitRequestSchema,
  HookWaitResponseSchema,
  MESSAGE_MAX_BYTES,
  MessageParamsSchema,
  MessageResponseSchema,
  MessagesQuerySchema,
  MessagesResponseSchema,
  PostMessageRequestSchema,
} from '../../shared/protocol/messages.js';
import type { Actor, HubDeps } from '../services/deps.js';
import { cancelMessage, queueMessage } from '../people/messages.js';
import { requireSession } from '../services/require-session.js';
import { tokenIdOf, type TokenIdentity } from '../services/tokens.js';
import { reachOf } from '../people/message-reach.js';
import { waitForMessages } from '../people/message-wait.js';
import { listMessagePage } from '../store/messages.js';
import { identityOf, requireToken, type TokenAccess } from './auth.js';
import { decodeMessageCursor, encodeMessageCursor } from './message-cursor.js';

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

  /** Paged from the latest back (a session's whole history could be megabytes): the page's own call, no query, gets the latest 100. */
  app.get(
    '/api/sessions/:sid/messages',
    { onRequest: requireToken(access), schema: { params: SidParamsSchema, querystring: MessagesQuerySchema, response: { 200: MessagesResponseSchema } } },
    async (request) => {
      const { limit, cursor } = request.query;
      const before = cursor === undefined ? undefined : decodeMessageCursor(cursor);
      const session = await requireSession(deps.store, identityOf(request), request.params.sid);
      const page = await listMessagePage(deps.store, { sid: session.sid, limit, ...(before ? { before } : {}) });
      const oldest = page.messages[0];
      return {
        sid: session.sid,
        messages: page.messages,
        ...(await reachOf(deps, session)),
        ...(page.more && oldest ? { nextCursor: encodeMessageCursor({ at: oldest.createdAt, id: oldest.id }) } : {}),
      };
    },
  );

  app.delete(
    '/api/sessions/:sid/messages/:messageId',
    { onRequest: requireToken(access, DECIDING_ROLES), schema: { params: MessageParamsSchema, response: { 200: MessageResponseSchema } } },
    async (request) => ({ message: await cancelMessage(deps, personOf(identityOf(request)), request.params) }),
  );

  /** The hook bridge's background waiter (agent or runner token): answers when a message came or the wait ran out; 403 when it is not the session's own (its taker proof), 401 when its token is revoked meanwhile. */
  app.post(
    '/api/hooks/wait',
    { onRequest: requireToken(access, HOOK_ROLES, { reportRefusals: true }), schema: { body: HookWaitRequestSchema, response: { 200: HookWaitResponseSchema } } },
    async (request, reply) => {
      const { namespace, role, tokenHash } = identityOf(request);
      const revoked = access.tokens.revocationSignal(tokenHash);
      // the waiter went away (its agent exited, or the connection broke): take nothing for it
      const left = new AbortController();
      const onClose = () => {
        if (!reply.raw.writableFinished) left.abort(new Error('the waiter closed its connection'));
      };
      reply.raw.once('close', onClose);
      try {
        return await waitForMessages(deps, { namespace, role, by: role === 'admin' ? 'user' : 'runner' }, request.body, { signal: AbortSignal.any([revoked.signal, left.signal]) });
      } catch (error) {
        if (left.signal.aborted) return reply.hijack(); // nobody to answer
        throw error;
      } finally {
        reply.raw.off('close', onClose);
        revoked.dispose();
      }
    },
  );
};
