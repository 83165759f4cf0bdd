import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { SignInCodeRequestSchema, SignInCodeResponseSchema, type SignInCodeResponse } from '../../shared/protocol/sign-in.js';
import type { HubDeps } from '../services/deps.js';
import type { SignInCodes } from '../services/sign-in-codes.js';
import { mintToken, parseTokenSpec, type TokenRegistry } from '../services/tokens.js';
import { signInLabel } from './device-label.js';
import { sendError } from './errors.js';
import { SIGN_IN_OVERALL, SIGN_IN_PER_ADDRESS, SignInLimiter } from './sign-in-limit.js';

/** A token made by a sign-in link lasts this long (a browser's "remember me" outlives the link). */
const LINK_TOKEN_TTL_MS = 30 * 86_400_000;
/** Roles a sign-in link may hand over from SESSION_HUB_TOKENS, best first. */
const PAGE_ROLES = ['admin', 'operator', 'dashboard'] as const;

/**
 * `POST /api/sign-in/code`: the start-up link's one-time code for a token. Stored tokens: a new
 * admin token for namespace `default` (origin `sign-in-link`, 30 days, revocable like any other).
 * Tokens from SESSION_HUB_TOKENS: the first admin (else operator, else dashboard) one configured.
 */
export const signInRoutes: FastifyPluginAsyncZod<{ deps: HubDeps; tokens: TokenRegistry; codes: SignInCodes }> = async (app, { deps, tokens, codes }) => {
  const limiter = new SignInLimiter(deps.clock.now());
  app.post('/api/sign-in/code', { schema: { body: SignInCodeRequestSchema, response: { 200: SignInCodeResponseSchema } } }, async (request, reply) => {
    const now = deps.clock.now();
    const limited = limiter.admit(request.ip, now);
    if (limited !== undefined) {
      reply.header('retry-after', '10');
      const which = limited === 'address' ? `from this address (${SIGN_IN_PER_ADDRESS.burst} at once, then one per ${1 / SIGN_IN_PER_ADDRESS.ratePerSecond} s)` : `on this hub (${SIGN_IN_OVERALL.burst} at once, then ${SIGN_IN_OVERALL.ratePerSecond} per second)`;
      return sendError(reply, 429, 'rate_limited', `too many sign-in attempts ${which}: try again later`);
    }
    if (!codes.take(request.body.code, now)) {
      // one line a minute at most, with the count: a stream of bad codes does not flood the log
      const count = limiter.refused(now);
      if (count !== undefined) request.log.warn({ refused: count }, 'sign-in link refused: used already, expired, or from another hub process');
      return sendError(reply, 401, 'unauthorized', 'this sign-in link was used already or has expired (it works once, for 10 minutes): sign in with a token, or restart the hub for a new link');
    }
    const granted = await grant(deps, tokens, now, signInLabel(request.headers['user-agent'], now));
    if (!granted) return sendError(reply, 409, 'conflict', 'SESSION_HUB_TOKENS holds no admin, operator or dashboard token to sign in with');
    request.log.info({ role: granted.role, tenant: granted.namespace }, 'signed in with the start-up link');
    return granted;
  });
};

async function grant(deps: HubDeps, tokens: TokenRegistry, now: number, label: string): Promise<SignInCodeResponse | undefined> {
  const spec = deps.config.tokens?.trim();
  if (spec) {
    const configured = parseTokenSpec(spec);
    for (const role of PAGE_ROLES) {
      const found = configured.find((t) => t.role === role);
      if (found) return { token: found.token, role: found.role, namespace: found.namespace, expiresAt: null };
    }
    return undefined;
  }
  const expiresAt = now + LINK_TOKEN_TTL_MS;
  const { token, stored } = await mintToken(deps.store, { role: 'admin', namespace: 'default', source: 'sign-in-link', now, expiresAt, label });
  tokens.add({ role: 'admin', namespace: 'default', tokenHash: stored.tokenHash, expiresAt, label });
  return { token, role: 'admin', namespace: 'default', expiresAt };
}
