import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { HubError } from '../../shared/errors.js';
import { ApprovalConflict, ApprovalNotFound } from '../people/approval-errors.js';
import { MachineRefused } from '../machines/refused.js';
import { MessageConflict, MessageNotFound } from '../people/messages.js';
import { ResumeRefused } from '../services/resume.js';
import { unavailableAnswer } from '../store/unavailable.js';
import { MESSAGE_MAX_BYTES } from '../../shared/protocol/messages.js';

export function sendError(reply: FastifyReply, status: number, error: string, message: string, extra: Record<string, unknown> = {}) {
  return reply.code(status).send({ error, message, ...extra });
}

/** Past this much of an over-large body the connection is cut rather than read to its end. */
const DRAIN_AT_MOST_BYTES = 16 * 1024 * 1024;
const DRAIN_AT_MOST_MS = 10_000;

/**
 * Reads what is left of an over-large body (up to 16 MiB, 10 s) before the 413 goes out: an answer
 * sent while the client still writes, followed by the connection's close, reaches a browser as a
 * network error (EPIPE) instead of the reason.
 */
function drained(request: FastifyRequest): Promise<void> {
  const raw = request.raw;
  if (raw.readableEnded || raw.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let read = 0;
    const done = () => {
      clearTimeout(timer);
      raw.off('data', onData);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > DRAIN_AT_MOST_BYTES) done();
    };
    const timer = setTimeout(done, DRAIN_AT_MOST_MS);
    raw.on('data', onData);
    raw.once('end', done);
    raw.once('close', done);
    raw.once('error', done);
    raw.resume();
  });
}

/** What a person reads for a body over the route's limit: its size and the limit, in bytes. */
function tooLarge(request: FastifyRequest): string {
  const limit = request.routeOptions.bodyLimit;
  const size = request.headers['content-length'];
  return `the request body${size ? ` (${size} bytes)` : ''} is larger than ${limit ?? 'the'} bytes this route takes: send less (a message to an agent is at most ${MESSAGE_MAX_BYTES} bytes of text)`;
}

/**
 * Maps every failure to the spec's `{ error, message }` body by its class or code, never by its
 * message: validation → 400 invalid_payload naming the field, HubError by its code (not_found is
 * `session_not_found` over HTTP), ResumeRefused → 409 with its reason, an approval already ended →
 * 409 with the approval, an unknown approval → 404 `approval_not_found`, anything else → 500.
 */
export function httpErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (hasZodFastifySchemaValidationErrors(error)) {
    const issue = error.validation[0];
    const field = issue?.instancePath ? issue.instancePath.replace(/^\//, '').replaceAll('/', '.') : error.validationContext;
    return sendError(reply, 400, 'invalid_payload', `${error.validationContext ?? 'request'} ${field}: ${issue?.message ?? 'invalid'}`);
  }
  if (error instanceof ResumeRefused) return sendError(reply, 409, error.error, error.message, { reason: error.reason });
  // a second decision learns the first one; an unknown approval is not an unknown session
  if (error instanceof ApprovalConflict) return sendError(reply, 409, 'conflict', error.message, { approval: error.approval });
  if (error instanceof ApprovalNotFound) return sendError(reply, 404, 'approval_not_found', error.message);
  if (error instanceof MessageConflict) return sendError(reply, 409, 'conflict', error.message, { current: error.current });
  if (error instanceof MachineRefused) return sendError(reply, error.status, error.code, error.message);
  if (error instanceof MessageNotFound) return sendError(reply, 404, 'message_not_found', error.message);
  if (error instanceof HubError) {
    request.log.debug({ code: error.code, reason: error.message }, 'request rejected');
    return sendError(reply, error.status, error.code === 'not_found' ? 'session_not_found' : error.code, error.message);
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    if (error.statusCode === 413) return drained(request).then(() => sendError(reply, 413, 'payload_too_large', tooLarge(request)));
    return sendError(reply, error.statusCode, error.statusCode === 429 ? 'rate_limited' : 'invalid_payload', error.message);
  }
  const unavailable = unavailableAnswer(error);
  if (unavailable) {
    request.log.warn({ err: error }, 'request failed: the store is unavailable');
    // a hint for generic HTTP clients and proxies; the SDK paces its own retries
    reply.header('retry-after', '1');
    return sendError(reply, unavailable.status, unavailable.code, unavailable.message);
  }
  request.log.error({ err: error }, 'request failed');
  return sendError(reply, 500, 'internal', 'internal error; nothing was written');
}
