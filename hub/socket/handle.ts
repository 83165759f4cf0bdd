/**
 * The one way a client event is handled: rate limit, validate at the edge with the shared zod
 * schema, run, and answer the ack exactly once for every outcome. Failures of an event sent without
 * an ack become a server `error` event. Nothing is dropped silently.
 */
import type { z } from 'zod';
import { HubError, hubError, type ErrorCode } from '../../shared/errors.js';
import type { AckOf } from '../../shared/protocol/events.js';
import { describeZodError } from '../../shared/protocol/validation.js';
import type { HubMetrics } from '../metrics/metrics.js';
import { unavailableAnswer } from '../store/unavailable.js';
import type { SocketData } from './types.js';
import { FLOOD_CUT_MS, floodingFor, type RateLimiter, type RateLimitKind } from './rate-limit.js';

/** The two ack families of the spec: lifecycle (`ok`) and versioned writes (`result`). */
export type AckKind = 'ok' | 'versioned';

export function errorAck(kind: AckKind, code: ErrorCode, message: string): unknown {
  return kind === 'ok' ? { ok: false, error: { code, message } } : { result: 'error', code, message };
}

/** A socket.io listener's ack callback: its last argument, when that is a function. */
export function ackOf(args: readonly unknown[]): ((response: unknown) => void) | undefined {
  const last = args[args.length - 1];
  return typeof last === 'function' ? (last as (response: unknown) => void) : undefined;
}

export interface HandlerContext {
  /** Work to do right after the ack is sent (replay must follow the ack). */
  afterAck(fn: () => void): void;
}

export interface HandleOptions {
  limiter: RateLimiter;
  now: () => number;
  metrics: HubMetrics;
}

/** The part of a typed socket that `handle` uses; event names are checked against the event map. */
interface HandledSocket {
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  emit(event: 'error', body: { code: ErrorCode; message: string; event: string }): unknown;
  disconnect(close?: boolean): unknown;
  data: SocketData;
}

/** The answers to a refused event, made once per limiter: a refusal allocates nothing but its ack. */
const refusals = new WeakMap<RateLimiter, Record<AckKind, Record<RateLimitKind, unknown>>>();

function refusalAcks(limiter: RateLimiter): Record<AckKind, Record<RateLimitKind, unknown>> {
  let acks = refusals.get(limiter);
  if (!acks) {
    const of = (kind: AckKind) => ({
      socket: Object.freeze(errorAck(kind, 'rate_limited', limiter.messages.socket)),
      token: Object.freeze(errorAck(kind, 'rate_limited', limiter.messages.token)),
    });
    refusals.set(limiter, (acks = { ok: of('ok'), versioned: of('versioned') }));
  }
  return acks;
}

/**
 * The rate limits (spec section 12), checked before anything else is done for the event: the
 * socket's bucket, then the token's. A refusal is answered from a ready-made ack, counted, never
 * logged; a socket that keeps flooding is told once and disconnected. True when the event may go on.
 */
function admit(socket: HandledSocket, event: string, args: readonly unknown[], kind: AckKind, options: HandleOptions): boolean {
  const now = options.now();
  const { data } = socket;
  const limit: RateLimitKind | undefined = !data.bucket.take(now) ? 'socket' : !options.limiter.forToken(data.identity.tokenHash, now).take(now) ? 'token' : undefined;
  if (limit === undefined) return true;
  options.metrics.rateLimited[limit].inc();
  if (limit === 'socket' && floodingFor(data.flood, now)) {
    data.log.warn({ event }, 'socket kept exceeding its rate limit: disconnected');
    socket.emit('error', { code: 'rate_limited', message: `disconnected: this socket kept exceeding its rate limit for ${FLOOD_CUT_S} s; reconnect later, slower`, event });
    socket.disconnect(true);
    return false;
  }
  const ack = ackOf(args);
  if (ack) ack(refusalAcks(options.limiter)[kind][limit]);
  else socket.emit('error', { code: 'rate_limited', message: options.limiter.messages[limit], event });
  return false;
}

const FLOOD_CUT_S = FLOOD_CUT_MS / 1000;

/**
 * Returns `on(event, schema, kind, fn)` for a socket whose events are `Events`: the event name must
 * be in the map and fn must return that event's ack type.
 */
export function eventHandlers<Events>(socket: HandledSocket, options: HandleOptions) {
  return function on<E extends keyof Events & string, S extends z.ZodType>(
    event: E,
    schema: S,
    kind: AckKind,
    fn: (payload: z.infer<S>, ctx: HandlerContext) => AckOf<Events[E]> | Promise<AckOf<Events[E]>>,
  ): void {
    handle(socket, event, schema, kind, options, fn);
  };
}

function handle<S extends z.ZodType>(
  socket: HandledSocket,
  event: string,
  schema: S,
  kind: AckKind,
  options: HandleOptions,
  fn: (payload: z.infer<S>, ctx: HandlerContext) => unknown,
): void {
  socket.on(event, (...args: unknown[]) => {
    if (!admit(socket, event, args, kind, options)) return;
    const ack = ackOf(args);
    const raw = typeof args[0] === 'function' ? undefined : args[0];
    const followUps: (() => void)[] = [];
    const log = socket.data.log;
    const receivedAt = performance.now();
    const { metrics } = options;
    // only the event name and the outcome are recorded: never a payload
    const observe = (result: string) => {
      metrics.ackDelay.observe({ event }, (performance.now() - receivedAt) / 1000);
      if (kind === 'versioned') metrics.writes.inc({ event, result: result === 'success' || result === 'version-mismatch' ? result : 'error' });
    };

    const answer = (response: unknown) => {
      if (ack) ack(response);
      observe(String((response as { result?: unknown }).result));
      // the answer is given: a failing follow-up (replay) is logged, never answered a second time
      for (const followUp of followUps) {
        try {
          followUp();
        } catch (error) {
          log.error({ err: error, event }, 'work after the ack failed');
        }
      }
    };
    const fail = (error: HubError) => {
      if (error.code === 'internal') log.error({ event, code: error.code }, 'event failed');
      else log.debug({ event, code: error.code, reason: error.message }, 'event rejected');
      if (ack) ack(errorAck(kind, error.code, error.message));
      else socket.emit('error', { code: error.code, message: error.message, event });
      observe('error');
    };

    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      fail(hubError.invalidPayload(describeZodError(parsed.error)));
      return;
    }
    const failWith = (error: unknown) => {
      const unavailable = error instanceof HubError ? undefined : unavailableAnswer(error);
      if (error instanceof HubError) fail(error);
      else if (unavailable) {
        log.warn({ err: error, event }, 'event failed: the store is unavailable');
        fail(unavailable);
      } else {
        log.error({ err: error, event }, 'event handler threw');
        fail(hubError.internal());
      }
    };
    try {
      const result = fn(parsed.data, { afterAck: (followUp) => followUps.push(followUp) });
      // a group-committed write answers once its batch has committed (or failed)
      if (result instanceof Promise) result.then(answer, failWith).catch((error: unknown) => log.error({ err: error, event }, 'answering failed'));
      else answer(result);
    } catch (error) {
      failWith(error);
    }
  });
}
