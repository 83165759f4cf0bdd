import { io, type ManagerOptions, type Socket, type SocketOptions } from 'socket.io-client';
import { HubRequestError } from './errors.js';

/** Options every SDK client takes. */
export interface ClientOptions {
  /** The hub's base URL, e.g. `http://127.0.0.1:3737`. */
  url: string;
  /** A token of the namespace (spec section 1). */
  token: string;
  /** Resume from this seq: the first joins/subscribes ask the hub to replay what came after it. */
  lastSeq?: number;
  /** How long one request waits for its ack before it counts as timed out. Default 5000 ms. */
  requestTimeoutMs?: number;
  /** How long the first connection may take before `connect()` rejects. Default 10000 ms. */
  connectTimeoutMs?: number;
  /** Passed to socket.io-client, e.g. `{ transports: ['websocket'] }` for a dashboard behind a balancer without sticky sessions. */
  socketOptions?: Partial<ManagerOptions & SocketOptions>;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 5000;

/**
 * Opens a socket on a namespace and resolves once it is connected. The handshake carries only the
 * token: replay is always asked for explicitly (`sinceSeq` in session-join / subscribe), so after a
 * `resync` the client can ask for fresh snapshots without the handshake's stale seq getting in the way.
 */
export function openSocket<S extends Socket>(namespace: '/runner' | '/dashboard', options: ClientOptions): Promise<S> {
  const socket = io(`${options.url}${namespace}`, {
    auth: { token: options.token },
    // runners speak websocket only, so a load balancer needs no sticky sessions for them; dashboards
    // keep socket.io's default (long-polling first, then upgrade) for networks that block websockets
    ...(namespace === '/runner' ? { transports: ['websocket'] } : {}),
    forceNew: true,
    reconnectionDelay: 250,
    reconnectionDelayMax: 5000,
    ...options.socketOptions,
  }) as S;
  return new Promise<S>((resolve, reject) => {
    const timer = setTimeout(() => fail(new HubRequestError('timeout', `could not connect to ${options.url}${namespace}`, 'connect')), options.connectTimeoutMs ?? 10_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.off('connect', ok);
      socket.off('connect_error', refused);
      socket.disconnect();
      reject(error);
    };
    const ok = () => {
      clearTimeout(timer);
      socket.off('connect_error', refused);
      resolve(socket);
    };
    // a refused handshake is final; a network error keeps socket.io-client retrying until the
    // timeout, unless reconnection is off (a short-lived hook process): then it fails at once
    const refused = (error: Error) => {
      if (error.message === 'unauthorized' || error.message === 'forbidden') fail(new HubRequestError(error.message, `handshake refused: ${error.message}`, 'connect'));
      else if (options.socketOptions?.reconnection === false) fail(new HubRequestError('timeout', `could not connect to ${options.url}${namespace}: ${error.message}`, 'connect'));
    };
    socket.once('connect', ok);
    socket.on('connect_error', refused);
  });
}

/** Turns socket.io's ack timeout / disconnect into a HubRequestError; anything else passes through. */
export function asRequestError(error: unknown, event: string): unknown {
  if (error instanceof HubRequestError) return error;
  // socket.io-client reports both as plain Errors; their messages are its fixed texts
  if (error instanceof Error && /timed out/i.test(error.message)) return new HubRequestError('timeout', `no answer to ${event}`, event);
  if (error instanceof Error && /disconnected/i.test(error.message)) return new HubRequestError('disconnected', `disconnected before ${event} was answered`, event);
  return error;
}

/**
 * Emits one request and waits for its ack at most `timeoutMs`; a timeout or disconnect becomes a
 * HubRequestError. Callers type `payload` and the answer from their event map.
 */
export function emitWithTimeout<Answer>(socket: Socket, event: string, payload: unknown, timeoutMs: number): Promise<Answer> {
  // TS cannot spread an event map's argument tuple for a generic event name, so this takes it untyped
  const timed = socket.timeout(timeoutMs) as unknown as { emitWithAck(event: string, payload: unknown): Promise<Answer> };
  return timed.emitWithAck(event, payload).catch((error: unknown) => Promise.reject(asRequestError(error, event)));
}

/** Unwraps a lifecycle/subscription ack: the success fields, or a HubRequestError with the code. */
export function unwrapOk<T extends { ok: boolean }>(ack: T, event: string): Extract<T, { ok: true }> {
  if (ack.ok) return ack as Extract<T, { ok: true }>;
  const { error } = ack as unknown as { error: { code: HubRequestError['code']; message: string } };
  throw new HubRequestError(error.code, error.message, event);
}
