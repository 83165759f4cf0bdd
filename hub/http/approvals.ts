import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { DECIDING_ROLES } from '../../shared/protocol/auth.js';
import { ApprovalParamsSchema, ApprovalSchema, ApprovalsResponseSchema, DecisionRequestSchema } from '../../shared/protocol/attention.js';
import { SidParamsSchema } from '../../shared/protocol/http.js';
import { decideApproval } from '../people/approvals.js';
import type { HubDeps } from '../services/deps.js';
import { requireSession } from '../services/require-session.js';
import { tokenIdOf } from '../services/tokens.js';
import { listApprovals } from '../store/approvals.js';
import { identityOf, requireToken, type TokenAccess } from './auth.js';

/**
 * Tool approvals (docs/attention.md): any token of the tenant reads them; operator and admin
 * tokens decide. Another tenant's session or approval is absent (404).
 */
export const approvalRoutes: FastifyPluginAsyncZod<{ deps: HubDeps; access: TokenAccess }> = async (app, { deps, access }) => {
  app.get(
    '/api/sessions/:sid/approvals',
    { onRequest: requireToken(access), schema: { params: SidParamsSchema, response: { 200: ApprovalsResponseSchema } } },
    async (request) => {
      const session = await requireSession(deps.store, identityOf(request), request.params.sid);
      return { sid: session.sid, approvals: await listApprovals(deps.store, session.sid) };
    },
  );

  app.post(
    '/api/sessions/:sid/approvals/:approvalId',
    {
      onRequest: requireToken(access, DECIDING_ROLES),
      schema: { params: ApprovalParamsSchema, body: DecisionRequestSchema, response: { 200: ApprovalSchema } },
    },
    async (request) => {
      const identity = identityOf(request);
      return decideApproval(deps, { namespace: identity.namespace, role: identity.role, by: 'user' }, {
        ...request.params,
        ...request.body,
        decidedBy: tokenIdOf(identity.tokenHash),
        decidedByLabel: identity.label ?? null,
      });
    },
  );
};
