/**
 * The work of a session, from the phone (spec section 15, docs/work.md): its changes, a diff and its
 * files for any token that reads sessions but `agent` and `machine` (an agent's token never reads
 * the machine's files through the hub); a commit and a worktree's removal for operator and admin.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { DECIDING_ROLES, WORK_READING_ROLES } from '../../shared/protocol/auth.js';
import { SidParamsSchema } from '../../shared/protocol/http.js';
import {
  ChangesResponseSchema,
  CommitRequestSchema,
  CommitResponseSchema,
  DiffQuerySchema,
  DiffResponseSchema,
  FilesQuerySchema,
  FilesResponseSchema,
  RemoveWorktreeQuerySchema,
  RemoveWorktreeResponseSchema,
} from '../../shared/protocol/work.js';
import { requesterOf } from '../machines/requester.js';
import { commitSession, removeWorktreeOf, sessionChanges, sessionDiff, sessionFiles } from '../machines/work.js';
import type { HubDeps } from '../services/deps.js';
import { identityOf, requireToken, type TokenAccess } from './auth.js';

export const workRoutes: FastifyPluginAsyncZod<{ deps: HubDeps; access: TokenAccess }> = async (app, { deps, access }) => {
  const reader = requireToken(access, WORK_READING_ROLES);
  const actor = requireToken(access, DECIDING_ROLES);
  const who = (request: Parameters<typeof identityOf>[0]) => requesterOf(identityOf(request));

  app.get(
    '/api/sessions/:sid/changes',
    { onRequest: reader, schema: { params: SidParamsSchema, response: { 200: ChangesResponseSchema } } },
    async (request) => sessionChanges(deps, who(request), request.params.sid),
  );

  app.get(
    '/api/sessions/:sid/changes/diff',
    { onRequest: reader, schema: { params: SidParamsSchema, querystring: DiffQuerySchema, response: { 200: DiffResponseSchema } } },
    async (request) => sessionDiff(deps, who(request), request.params.sid, request.query.file),
  );

  app.get(
    '/api/sessions/:sid/files',
    { onRequest: reader, schema: { params: SidParamsSchema, querystring: FilesQuerySchema, response: { 200: FilesResponseSchema } } },
    async (request) => sessionFiles(deps, who(request), request.params.sid, request.query.path),
  );

  app.post(
    '/api/sessions/:sid/commit',
    { onRequest: actor, schema: { params: SidParamsSchema, body: CommitRequestSchema, response: { 201: CommitResponseSchema } } },
    async (request, reply) => reply.code(201).send(await commitSession(deps, who(request), request.params.sid, request.body)),
  );

  app.delete(
    '/api/sessions/:sid/worktree',
    { onRequest: actor, schema: { params: SidParamsSchema, querystring: RemoveWorktreeQuerySchema, response: { 200: RemoveWorktreeResponseSchema } } },
    async (request) => removeWorktreeOf(deps, who(request), request.params.sid, request.query.force === 'true'),
  );
};
