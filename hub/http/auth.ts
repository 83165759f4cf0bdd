import type { FastifyReply, FastifyRequest } from 'fastify';
import { RoleSchema, type Role } from '../../shared/protocol/auth.js';
import type { TokenIdentity, TokenRegistry } from '../services/tokens.js';
import type { HubMetrics } from '../metrics/metrics.js';
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
}

const BEARER = /^bearer[ \t]+(\S.*?)\s*$/i;

/**
 * An onRequest hook: a valid `Authorization: Bearer <token>` whose role is one of `roles`, within
 * the token's rate limit. It runs before the body is parsed or validated, so a caller without the
 * right token learns nothing about its payload (401/403 win over 400).
 */
export function requireToken(access: TokenAccess, roles: readonly Role[] = RoleSchema.options) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    // the scheme is case-insensitive (RFC 7235): `bearer x` is as good as `Bearer x`
    const token = BEARER.exec(request.headers.authorization ?? '')?.[1];
    const identity = await access.tokens.verify(token);
    if (!identity) return sendError(reply, 401, 'unauthorized', 'a valid token is required: Authorization: Bearer <token>');
    // spec section 12: one bucket per token, shared with that token's sockets
    const now = access.now();
    if (!access.limiter.forToken(identity.tokenHash, now).take(now)) {
      access.metrics.rateLimited.token.inc();
      return sendError(reply, 429, 'rate_limited', access.limiter.messages.token);
    }
    if (!roles.includes(identity.role)) {
      return sendError(reply, 403, 'forbidden', `this needs ${article(roles[0] ?? '')} ${roles.join(' or ')} token; yours is ${article(identity.role)} ${identity.role} token`);
    }
    request.identity = identity;
  };
}

/** "an" before a role that starts with a vowel sound (admin, operator), else "a". */
function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

/** The identity a route's preHandler established. */
export function identityOf(request: FastifyRequest): TokenIdentity {
  if (!request.identity) throw new Error('route is missing its requireToken preHandler');
  return request.identity;
}
