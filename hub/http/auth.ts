import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Role } from '../../shared/protocol/auth.js';
import type { TokenIdentity, TokenRegistry } from '../services/tokens.js';
import { sendError } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    identity?: TokenIdentity;
  }
}

/** A preHandler: a valid `Authorization: Bearer <token>` whose role is one of `roles`. */
export function requireToken(tokens: TokenRegistry, roles: readonly Role[] = ['runner', 'dashboard', 'admin']) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : undefined;
    const identity = tokens.verify(token);
    if (!identity) return sendError(reply, 401, 'unauthorized', 'a valid token is required: Authorization: Bearer <token>');
    if (!roles.includes(identity.role)) {
      return sendError(reply, 403, 'forbidden', `this needs a ${roles.join(' or ')} token; yours is a ${identity.role} token`);
    }
    request.identity = identity;
  };
}

/** The identity a route's preHandler established. */
export function identityOf(request: FastifyRequest): TokenIdentity {
  if (!request.identity) throw new Error('route is missing its requireToken preHandler');
  return request.identity;
}
