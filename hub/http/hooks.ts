import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { HookAgentReportResponseSchema, HookAgentReportSchema, HookBatchResponseSchema, HookBatchSchema } from '../../shared/protocol/hooks.js';
import { HOOK_ROLES } from '../../shared/protocol/auth.js';
import { LIMITS } from '../../shared/protocol/limits.js';
import { reportAgent } from '../lifecycle/agent-reports.js';
import { applyHookEvents } from '../lifecycle/hook-events.js';
import type { HubDeps } from '../services/deps.js';
import { identityOf, requireToken, type TokenAccess } from './auth.js';

/**
 * POST /api/hooks: the hook bridge's route (an agent, runner or admin token). 200 answers one result per
 * event; 401/403 (token unknown or of the wrong role) come before the body is read, so the bridge
 * tells a misconfigured hook from an unreachable hub.
 */
export const hookRoutes: FastifyPluginAsyncZod<{ deps: HubDeps; access: TokenAccess }> = async (app, { deps, access }) => {
  app.post(
    '/api/hooks',
    {
      onRequest: requireToken(access, HOOK_ROLES, { reportRefusals: true }),
      bodyLimit: LIMITS.maxHookBatchBytes,
      schema: { body: HookBatchSchema, response: { 200: HookBatchResponseSchema } },
    },
    async (request, reply) => {
      const { namespace, role, tokenHash } = identityOf(request);
      // the caller gone before its answer (a hook process killed while it waits for a decision):
      // its approval ends `abandoned` rather than waiting for a decision nobody would receive
      const closed = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableEnded) closed.abort();
      });
      // its token revoked meanwhile: the approval ends the same way, and the answer is that 401
      const revoked = access.tokens.revocationSignal(tokenHash);
      try {
        const signal = AbortSignal.any([closed.signal, revoked.signal]);
        const results = await applyHookEvents(deps, { namespace, role, by: role === 'admin' ? 'user' : 'runner' }, request.body.events, { signal });
        revoked.signal.throwIfAborted();
        return { results };
      } finally {
        revoked.dispose();
      }
    },
  );

  /** POST /api/hooks/agent: the bridge's keeper says its agent lives, or is gone (lifecycle/agent-reports.ts). */
  app.post(
    '/api/hooks/agent',
    { onRequest: requireToken(access, HOOK_ROLES, { reportRefusals: true }), schema: { body: HookAgentReportSchema, response: { 200: HookAgentReportResponseSchema } } },
    async (request) => {
      const { namespace, role } = identityOf(request);
      return reportAgent(deps, { namespace, role, by: role === 'admin' ? 'user' : 'runner' }, request.body);
    },
  );
};
