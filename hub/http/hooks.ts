import { REPORTING_ROLES } from '../../shared/protocol/auth.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { HookBatchResponseSchema, HookBatchSchema } from '../../shared/protocol/hooks.js';
import { LIMITS } from '../../shared/protocol/limits.js';
import { applyHookEvents } from '../lifecycle/hook-events.js';
import type { HubDeps } from '../services/deps.js';
import { identityOf, requireToken, type TokenAccess } from './auth.js';
import { parseJsonRefusingPrototypeKeys } from './forbidden-keys.js';

/**
 * POST /api/hooks: the hook bridge's route (a runner or admin token). 200 answers one result per
 * event; 401/403 (token unknown or of the wrong role) come before the body is read, so the bridge
 * tells a misconfigured hook from an unreachable hub.
 */
export const hookRoutes: FastifyPluginAsyncZod<{ deps: HubDeps; access: TokenAccess }> = async (app, { deps, access }) => {
  // this plugin's own JSON parser: a payload with a prototype key is refused naming the key, not as "not valid JSON"
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: LIMITS.maxHookBatchBytes }, (_request, body, done) => {
    try {
      done(null, parseJsonRefusingPrototypeKeys(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.post(
    '/api/hooks',
    {
      onRequest: requireToken(access, REPORTING_ROLES),
      bodyLimit: LIMITS.maxHookBatchBytes,
      schema: { body: HookBatchSchema, response: { 200: HookBatchResponseSchema } },
    },
    async (request, reply) => {
      const { namespace, role } = identityOf(request);
      // the caller gone before its answer (a hook process killed while it waits for a decision):
      // its approval ends `abandoned` rather than waiting for a decision nobody would receive
      const closed = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableEnded) closed.abort();
      });
      return { results: await applyHookEvents(deps, { namespace, role, by: role === 'admin' ? 'user' : 'runner' }, request.body.events, { signal: closed.signal }) };
    },
  );
};
