import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { hubError } from '../../shared/errors.js';
import { UsageQuerySchema, UsageResponseSchema } from '../../shared/protocol/http.js';
import { NO_USAGE, type UsageTotals } from '../../shared/protocol/usage.js';
import type { HubDeps } from '../services/deps.js';
import { usageReport } from '../store/usage.js';
import { identityOf, requireToken, type TokenAccess } from './auth.js';

/** Without `from`, the report covers this long before `to`. */
const DEFAULT_RANGE_MS = 30 * 86_400_000;

function add(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    costUsd: a.costUsd === null && b.costUsd === null ? null : (a.costUsd ?? 0) + (b.costUsd ?? 0),
    unpricedTokens: a.unpricedTokens + b.unpricedTokens,
  };
}

/** `GET /api/usage`: the namespace's tokens and cost in a time range, grouped (docs/usage.md). */
export const usageRoutes: FastifyPluginAsyncZod<{ deps: HubDeps; access: TokenAccess }> = async (app, { deps, access }) => {
  app.get(
    '/api/usage',
    { onRequest: requireToken(access), schema: { querystring: UsageQuerySchema, response: { 200: UsageResponseSchema } } },
    async (request) => {
      const { groupBy } = request.query;
      // by default up to now, included (to is exclusive)
      const to = request.query.to ?? deps.clock.now() + 1;
      const from = request.query.from ?? Math.max(0, to - DEFAULT_RANGE_MS);
      if (from >= to) throw hubError.invalidPayload(`querystring from: must be before to (${new Date(to).toISOString()})`);
      const groups = await usageReport(deps.store, { namespace: identityOf(request).namespace, from, to, groupBy });
      return {
        from,
        to,
        groupBy,
        groups: groups.map(({ key, totals }) => ({ key, ...totals })),
        totals: groups.reduce((sum, group) => add(sum, group.totals), NO_USAGE),
      };
    },
  );
};
