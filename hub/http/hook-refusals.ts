import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { HubDeps } from '../services/deps.js';
import { listHookRefusals } from '../store/hook-refusals.js';
import { identityOf, requireToken, type TokenAccess } from './auth.js';

/** How far back the admins' page and `doctor` look for refused hook deliveries. */
export const RECENT_REFUSALS_MS = 24 * 3_600_000;

const HookRefusalSchema = z.object({
  tokenId: z.string(),
  address: z.string(),
  status: z.number(),
  message: z.string(),
  count: z.number(),
  firstAt: z.number(),
  lastAt: z.number(),
});

/**
 * `GET /api/hook-refusals` (admins): hook deliveries refused in the last day, per presented token
 * (hash prefix) and address: those of the admin's namespace, and those of tokens the hub does not
 * know (no namespace), which is how a wrong token shows up.
 */
export const hookRefusalRoutes: FastifyPluginAsyncZod<{ deps: HubDeps; access: TokenAccess }> = async (app, { deps, access }) => {
  app.get(
    '/api/hook-refusals',
    { onRequest: requireToken(access, ['admin']), schema: { response: { 200: z.object({ refusals: z.array(HookRefusalSchema) }) } } },
    async (request) => {
      const { namespace } = identityOf(request);
      const rows = await listHookRefusals(deps.store, deps.clock.now() - RECENT_REFUSALS_MS);
      return { refusals: rows.filter((row) => row.namespace === null || row.namespace === namespace).map(({ namespace: _, ...row }) => row) };
    },
  );
};
