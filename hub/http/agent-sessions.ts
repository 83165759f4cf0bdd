/**
 * Every session on the machine (spec section 16, docs/agent-sessions.md): the agents' own sessions a
 * machine keeps, listed and imported by operator and admin tokens (a listing shows the machine's
 * directories and prompts: what the machines API shows only to those roles).
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { DECIDING_ROLES } from '../../shared/protocol/auth.js';
import { AgentSessionsQuerySchema, AgentSessionsResponseSchema, ImportAgentSessionRequestSchema, ImportAgentSessionResponseSchema } from '../../shared/protocol/agent-sessions.js';
import { MachineParamsSchema } from '../../shared/protocol/machines.js';
import { importAgentSession, listAgentSessions } from '../machines/agent-sessions.js';
import { requesterOf } from '../machines/requester.js';
import type { HubDeps } from '../services/deps.js';
import { identityOf, requireToken, type TokenAccess } from './auth.js';

export const agentSessionRoutes: FastifyPluginAsyncZod<{ deps: HubDeps; access: TokenAccess }> = async (app, { deps, access }) => {
  const actor = requireToken(access, DECIDING_ROLES);
  const who = (request: Parameters<typeof identityOf>[0]) => requesterOf(identityOf(request));

  app.get(
    '/api/machines/:machineId/agent-sessions',
    { onRequest: actor, schema: { params: MachineParamsSchema, querystring: AgentSessionsQuerySchema, response: { 200: AgentSessionsResponseSchema } } },
    async (request) => listAgentSessions(deps, who(request), request.params.machineId, request.query.path),
  );

  app.post(
    '/api/machines/:machineId/agent-sessions/import',
    { onRequest: actor, schema: { params: MachineParamsSchema, body: ImportAgentSessionRequestSchema, response: { 200: ImportAgentSessionResponseSchema, 201: ImportAgentSessionResponseSchema } } },
    async (request, reply) => {
      const made = await importAgentSession(deps, who(request), request.params.machineId, request.body);
      return reply.code(made.created ? 201 : 200).send(made);
    },
  );
};
