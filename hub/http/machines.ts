/**
 * The machines API (spec section 14, docs/machines.md): any token of the namespace lists machines;
 * operator and admin tokens act (start, continue, interrupt, stop) and list a machine's directories,
 * which shows its file system. Each action is recorded with who asked.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { DECIDING_ROLES } from '../../shared/protocol/auth.js';
import { SidParamsSchema } from '../../shared/protocol/http.js';
import {
  ContinuePlaceResponseSchema,
  ContinueSessionRequestSchema,
  ForgetMachineResponseSchema,
  MachineAcceptedResponseSchema,
  MachineDirsQuerySchema,
  MachineDirsResponseSchema,
  MachineListResponseSchema,
  MachineMkdirRequestSchema,
  MachineParamsSchema,
  StartSessionRequestSchema,
  StartSessionResponseSchema,
  TakeBackRequestSchema,
  TakeBackResponseSchema,
} from '../../shared/protocol/machines.js';
import { actOnRun, continueOnMachine, continuePlace, forgetMachineFor, listMachinesFor, machineDirs, makeMachineDir, startOnMachine } from '../machines/actions.js';
import { requesterOf } from '../machines/requester.js';
import { takeBack } from '../machines/take-back.js';
import type { HubDeps } from '../services/deps.js';
import { identityOf, requireToken, type TokenAccess } from './auth.js';

export const machineRoutes: FastifyPluginAsyncZod<{ deps: HubDeps; access: TokenAccess }> = async (app, { deps, access }) => {
  const anyToken = requireToken(access);
  const actor = requireToken(access, DECIDING_ROLES);
  const who = (request: Parameters<typeof identityOf>[0]) => requesterOf(identityOf(request));

  app.get('/api/machines', { onRequest: anyToken, schema: { response: { 200: MachineListResponseSchema } } }, async (request) => ({
    machines: await listMachinesFor(deps, identityOf(request).namespace),
  }));

  app.get(
    '/api/machines/:machineId/dirs',
    { onRequest: actor, schema: { params: MachineParamsSchema, querystring: MachineDirsQuerySchema, response: { 200: MachineDirsResponseSchema } } },
    async (request) => machineDirs(deps, who(request), request.params.machineId, request.query.path),
  );

  app.post(
    '/api/machines/:machineId/dirs',
    { onRequest: actor, schema: { params: MachineParamsSchema, body: MachineMkdirRequestSchema, response: { 201: MachineDirsResponseSchema } } },
    async (request, reply) => reply.code(201).send(await makeMachineDir(deps, who(request), request.params.machineId, request.body.path)),
  );

  app.delete(
    '/api/machines/:machineId',
    { onRequest: actor, schema: { params: MachineParamsSchema, response: { 200: ForgetMachineResponseSchema } } },
    async (request) => forgetMachineFor(deps, who(request), request.params.machineId),
  );

  app.post(
    '/api/machines/:machineId/sessions',
    { onRequest: actor, schema: { params: MachineParamsSchema, body: StartSessionRequestSchema, response: { 201: StartSessionResponseSchema } } },
    async (request, reply) => reply.code(201).send(await startOnMachine(deps, who(request), request.params.machineId, request.body)),
  );

  app.get(
    '/api/sessions/:sid/continue',
    { onRequest: actor, schema: { params: SidParamsSchema, response: { 200: ContinuePlaceResponseSchema } } },
    async (request) => continuePlace(deps, who(request), request.params.sid),
  );

  app.post(
    '/api/sessions/:sid/continue',
    { onRequest: actor, schema: { params: SidParamsSchema, body: ContinueSessionRequestSchema, response: { 202: MachineAcceptedResponseSchema } } },
    async (request, reply) => reply.code(202).send(await continueOnMachine(deps, who(request), request.params.sid, request.body ?? {})),
  );

  app.post(
    '/api/sessions/:sid/take-back',
    { onRequest: actor, schema: { params: SidParamsSchema, body: TakeBackRequestSchema, response: { 200: TakeBackResponseSchema } } },
    async (request) => takeBack(deps, who(request), request.params.sid, request.body ?? { policy: 'safe', now: false }),
  );

  // written out, not looped: each route is one line of source (test/http/protocol-documents.test.ts counts them)
  const runAction = { onRequest: actor, schema: { params: SidParamsSchema, response: { 202: MachineAcceptedResponseSchema } } };
  app.post('/api/sessions/:sid/interrupt', runAction, async (request, reply) => reply.code(202).send(await actOnRun(deps, who(request), request.params.sid, 'interrupt')));
  app.post('/api/sessions/:sid/stop', runAction, async (request, reply) => reply.code(202).send(await actOnRun(deps, who(request), request.params.sid, 'stop')));
};
