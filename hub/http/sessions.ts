import { REPORTING_ROLES } from '../../shared/protocol/auth.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ArchiveRequestSchema,
  ArchiveResponseSchema,
  HistoryResponseSchema,
  ListSessionsQuerySchema,
  ListSessionsResponseSchema,
  RepairRequestSchema,
  RepairResponseSchema,
  ResumeRequestSchema,
  ResumeResponseSchema,
  SidParamsSchema,
  TurnsResponseSchema,
} from '../../shared/protocol/http.js';
import { SessionSnapshotSchema } from '../../shared/protocol/session.js';
import { archive } from '../lifecycle/session-events.js';
import type { Actor, HubDeps } from '../services/deps.js';
import { repairSession } from '../services/repair.js';
import { requireSession } from '../services/require-session.js';
import { resumeSession } from '../services/resume.js';
import { toSnapshot } from '../services/snapshots.js';
import { listApprovals } from '../store/approvals.js';
import { listHistory } from '../store/history.js';
import { listSessionsPage, type StoredSession } from '../store/sessions.js';
import { listActivities, listTurns } from '../store/turns.js';
import { listTurnTexts } from '../store/turn-texts.js';
import { identityOf, requireToken, type TokenAccess } from './auth.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import type { FastifyRequest } from 'fastify';

/** HTTP actions are a person's: attributed to `user`. */
function userActor(request: FastifyRequest): Actor {
  const { namespace, role } = identityOf(request);
  return { namespace, role, by: 'user' };
}

/** The session API (spec section 11). */
export const sessionRoutes: FastifyPluginAsyncZod<{ deps: HubDeps; access: TokenAccess }> = async (app, { deps, access }) => {
  const anyToken = requireToken(access);
  const runnerOrAdmin = requireToken(access, REPORTING_ROLES);
  const adminOnly = requireToken(access, ['admin']);

  app.get(
    '/api/sessions',
    { onRequest: anyToken, schema: { querystring: ListSessionsQuerySchema, response: { 200: ListSessionsResponseSchema } } },
    async (request) => {
      const { limit, cursor, ...filters } = request.query;
      const rows = await listSessionsPage(deps.store, {
        ...filters,
        namespace: identityOf(request).namespace,
        limit: limit + 1,
        after: cursor === undefined ? undefined : decodeCursor(cursor, filters.sort),
      });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      const sortKey = (session: StoredSession) => (filters.sort === 'activity' ? session.lastActivityAt : session.updatedAt);
      return {
        sessions: await Promise.all(page.map((session) => toSnapshot(deps.store, deps, session))),
        nextCursor: rows.length > limit && last ? encodeCursor({ at: sortKey(last), sid: last.sid }, filters.sort) : null,
      };
    },
  );

  app.get(
    '/api/sessions/:sid',
    { onRequest: anyToken, schema: { params: SidParamsSchema, response: { 200: SessionSnapshotSchema } } },
    async (request) => toSnapshot(deps.store, deps, await requireSession(deps.store, identityOf(request), request.params.sid)),
  );

  app.get(
    '/api/sessions/:sid/history',
    { onRequest: anyToken, schema: { params: SidParamsSchema, response: { 200: HistoryResponseSchema } } },
    async (request) => {
      const session = await requireSession(deps.store, identityOf(request), request.params.sid);
      const decisions = (await listApprovals(deps.store, session.sid)).filter((approval) => approval.decidedBy !== null);
      return { sid: session.sid, history: await listHistory(deps.store, session.sid), decisions };
    },
  );

  app.get(
    '/api/sessions/:sid/turns',
    { onRequest: anyToken, schema: { params: SidParamsSchema, response: { 200: TurnsResponseSchema } } },
    async (request) => {
      const session = await requireSession(deps.store, identityOf(request), request.params.sid);
      const turns = await listTurns(deps.store, session.sid);
      return Promise.all(turns.map(async (turn) => ({ ...turn, activities: await listActivities(deps.store, turn.turnId), texts: await listTurnTexts(deps.store, turn.turnId) })));
    },
  );

  app.post(
    '/api/sessions/:sid/resume',
    { onRequest: runnerOrAdmin, schema: { params: SidParamsSchema, body: ResumeRequestSchema, response: { 200: ResumeResponseSchema } } },
    async (request) => resumeSession(deps, userActor(request), request.params.sid, request.body.policy),
  );

  app.post(
    '/api/sessions/:sid/archive',
    { onRequest: runnerOrAdmin, schema: { params: SidParamsSchema, body: ArchiveRequestSchema, response: { 200: ArchiveResponseSchema } } },
    async (request) => archive(deps, userActor(request), { sid: request.params.sid, reason: request.body.reason }, 'cancelled'),
  );

  app.post(
    '/api/sessions/:sid/repair',
    { onRequest: adminOnly, schema: { params: SidParamsSchema, body: RepairRequestSchema, response: { 200: RepairResponseSchema } } },
    async (request) => repairSession(deps, userActor(request), request.params.sid, request.body.keys),
  );
};
