import type { FastifyReply, FastifyRequest } from 'fastify';
import { READING_ROLES, type Role } from '../../shared/protocol/auth.js';
import type { TokenIdentity, TokenRegistry } from '../services/tokens.js';
import type { HubMetrics } from '../metrics/metrics.js';
import type { HookRefusals } from '../services/hook-refusals.js';
import type { RateLimiter } from '../socket/rate-limit.js';
import { sendError } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    identity?: TokenIdentity;
  }
}

/** What checking a bearer token needs: the registry, and the per-token rate limit the sockets share. */
export interface TokenAccess {
  tokens: TokenRegistry;
  limiter: RateLimiter;
  now: () => number;
  metrics: HubMetrics;
  /** Where the hook routes' refusals are reported (log, doctor, the admins' page). */
  refusals?: HookRefusals;
}

/** Why an agent token is refused: it is readable by the agent's own tools (docs/security.md). */
const AGENT_LIMITS = ' (an agent token only reports hook events and takes its messages)';

/** "an admin", "a runner": a role named in a sentence. */
function withArticle(word: string): string {
  return `${/^[aeiou]/.test(word) ? 'an' : 'a'} ${word}`;
}

const BEARER = /^bearer[ \t]+(\S.*?)\s*$/i;

/**
 * An onRequest hook: a valid `Authorization: Bearer <token>` whose role is one of `roles` (by
 * default every role that may read sessions: an `agent` token only where a route names it), within
 * the token's rate limit. It runs before the body is parsed or validated, so a caller without the
 * right token learns nothing about its payload (401/403 win over 400).
 */
export function requireToken(access: TokenAccess, roles: readonly Role[] = READING_ROLES, options: { reportRefusals?: boolean } = {}) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    // the scheme is case-insensitive (RFC 7235): `bearer x` is as good as `Bearer x`
    const token = BEARER.exec(request.headers.authorization ?? '')?.[1];
    const identity = await access.tokens.verify(token);
    const refused = (status: number, message: string) => {
      if (options.reportRefusals) access.refusals?.note({ token, address: request.ip, namespace: identity?.namespace ?? null, status, message });
    };
    if (!identity) {
      const message = 'a valid token is required: Authorization: Bearer <token>';
      refused(401, message);
      return sendError(reply, 401, 'unauthorized', message);
    }
    // spec section 12: one bucket per token, shared with that token's sockets
    const now = access.now();
    if (!access.limiter.forToken(identity.tokenHash, now).take(now)) {
      access.metrics.rateLimited.token.inc();
      return sendError(reply, 429, 'rate_limited', access.limiter.messages.token);
    }
    if (!roles.includes(identity.role)) {
      const needs = roles.join(' or ');
      const limits = identity.role === 'agent' ? AGENT_LIMITS : '';
      const message = `this needs ${withArticle(needs)} token; yours is ${withArticle(identity.role)} token${limits}`;
      refused(403, message);
      return sendError(reply, 403, 'forbidden', message);
    }
    request.identity = identity;
  };
}

/** The identity a route's preHandler established. */
export function identityOf(request: FastifyRequest): TokenIdentity {
  if (!request.identity) throw new Error('route is missing its requireToken preHandler');
  return request.identity;
}
