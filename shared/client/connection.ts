import { io, type ManagerOptions, type Socket, type SocketOptions } from 'socket.io-client';
import { sleep } from './backoff.js';
import { HubRequestError } from './errors.js';

/** Options every SDK client takes. */
export interface ClientOptions {
  /**
   * The hub's base URL, e.g. `http://127.0.0.1:3737` — or the base URLs of several processes of one
   * cluster: the client connects to the first that answers and, when its process goes away, moves on
   * to the next (round robin; docs/sdk.md, "Failover"). One URL behind a load balancer works too.
   */
  url: string | readonly string[];
  /** A token of the namespace (spec section 1). */
  token: string;
  /** Resume from this seq: the first joins/subscribes ask the hub to replay what came after it. */
  lastSeq?: number;
  /** How long one request waits for its ack before it counts as timed out. Default 5000 ms. */
  requestTimeoutMs?: number;
  /** How long the first connection may take before `connect()` rejects. Default 10000 ms. */
  connectTimeoutMs?: number;
  /**
   * Passed to socket.io-client, e.g. `{ transports: ['websocket'] }` for a dashboard behind a balancer
   * without sticky sessions. `reconnection`, `reconnectionAttempts` (full rounds of the URL list),
   * `reconnectionDelay`, `reconnectionDelayMax` and `randomizationFactor` pace the SDK's own failover.
   */
  socketOptions?: Partial<ManagerOptions & SocketOptions>;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 5000;

/** The URLs of `ClientOptions.url`, in order; at least one. */
export function hubUrls(url: ClientOptions['url']): string[] {
  const urls = (typeof url === 'string' ? [url] : [...url]).map((candidate) => candidate.replace(/\/+$/, ''));
  if (urls.length === 0 || urls.some((candidate) => candidate === '')) throw new TypeError('url: give at least one hub URL');
  return urls;
}

/**
 * Opens a socket on a namespace and resolves once it is connected (see `openLink`).
 */
export async function openSocket<S extends Socket>(namespace: '/runner' | '/dashboard', options: ClientOptions): Promise<S> {
  return (await openLink<S>(namespace, options)).socket;
}

/**
 * Opens a socket on a namespace and resolves once it is connected, with the failover that keeps it
 * connected. The handshake carries only the token: replay is always asked for explicitly (`sinceSeq`
 * in session-join / subscribe), so after a `resync` the client can ask for fresh snapshots without the
 * handshake's stale seq getting in the way.
 */
export function openLink<S extends Socket>(namespace: '/runner' | '/dashboard', options: ClientOptions): Promise<{ socket: S; failover: Failover }> {
  const urls = hubUrls(options.url);
  const settings: Partial<ManagerOptions & SocketOptions> = {
    // runners speak websocket only, so a load balancer needs no sticky sessions for them; dashboards
    // keep socket.io's default (long-polling first, then upgrade) for networks that block websockets
    ...(namespace === '/runner' ? { transports: ['websocket'] } : {}),
    reconnectionDelay: 250,
    reconnectionDelayMax: 5000,
    ...options.socketOptions,
  };
  const socket = io(`${urls[0]}${namespace}`, {
    ...settings,
    auth: { token: options.token },
    forceNew: true,
    autoConnect: false,
    // socket.io-client would only ever retry its one URL: the SDK's failover reconnects instead
    reconnection: false,
  }) as S;
  const failover = new Failover(socket, urls, namespace, pacingOf(settings));
  const where = urls.length === 1 ? `${urls[0]}${namespace}` : `${namespace} at any of ${urls.join(', ')}`;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      failover.stop();
      socket.disconnect();
      reject(new HubRequestError('timeout', `could not connect to ${where}`, 'connect'));
    }, options.connectTimeoutMs ?? 10_000);
    void failover.connectFirst().then((outcome) => {
      clearTimeout(timer);
      if (outcome.result === 'connected') return resolve({ socket, failover });
      failover.stop();
      socket.disconnect();
      if (outcome.result === 'stopped') return; // the timer rejected already
      const message = outcome.error?.message ?? 'no answer';
      // a refused handshake is final; a network error is retried until the timeout, unless
      // reconnection is off (a short-lived hook process): then one round of the URLs and it fails
      if (outcome.result === 'refused') reject(new HubRequestError(message === 'forbidden' ? 'forbidden' : 'unauthorized', `handshake refused: ${message}`, 'connect'));
      else reject(new HubRequestError('timeout', `could not connect to ${where}: ${message}`, 'connect'));
    });
  });
}

/** How the failover paces itself: socket.io-client's reconnection settings, applied per full round of URLs. */
interface Pacing {
  retry: boolean;
  rounds: number;
  delayMs: number;
  maxDelayMs: number;
  jitter: number;
}

function pacingOf(settings: Partial<ManagerOptions>): Pacing {
  return {
    retry: settings.reconnection !== false,
    rounds: settings.reconnectionAttempts ?? Infinity,
    delayMs: settings.reconnectionDelay ?? 250,
    maxDelayMs: settings.reconnectionDelayMax ?? 5000,
    jitter: settings.randomizationFactor ?? 0.5,
  };
}

type Outcome = { result: 'connected' } | { result: 'refused' | 'exhausted' | 'stopped'; error?: Error };

/**
 * Keeps one socket connected to one of several hub URLs. When the connection drops (not by the
 * client), it waits socket.io's jittered backoff once, as socket.io's own reconnect does, then
 * tries the URL it was on and each next one in turn, back to back; after a full round without
 * success it waits again (the delay growing per round) and goes round again.
 * It stays the same Socket object throughout (its manager's URL is switched), so every listener and
 * buffered emit carries over and the clients' `connect` handlers do the rejoin/resubscribe as on
 * any reconnect. A refused handshake (`unauthorized` / `forbidden`) stops it, as socket.io does.
 */
export class Failover {
  private index = 0;
  private running = false;
  private stopped = false;
  private abortAttempt: (() => void) | undefined;
  private rateLimitedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly socket: Socket,
    readonly urls: readonly string[],
    private readonly namespace: string,
    private readonly pacing: Pacing,
  ) {
    // the hub cuts a socket that keeps exceeding its rate limit, telling it so first: such a cut is
    // followed by a reconnect at the slowest pace, not at once (which would only flood again)
    socket.on('error', (event: { code?: unknown }) => {
      if (event?.code === 'rate_limited') this.rateLimitedAt = Date.now();
    });
    socket.on('disconnect', (reason) => {
      if (reason === 'io client disconnect' || this.stopped || !this.pacing.retry) return;
      const cutForFlooding = reason === 'io server disconnect' && Date.now() - this.rateLimitedAt < 1000;
      // a server-side disconnect (a hub shutting down) destroys the socket: it may be opened again
      void this.run({ afterDrop: true, mayOpen: reason === 'io server disconnect', backOff: cutForFlooding });
    });
  }

  /** The hub URL the socket is connected to (or trying now). */
  get url(): string {
    return this.urls[this.index]!;
  }

  /** The first connection: a round at once, then more while reconnection is on (the caller times it out). */
  connectFirst(): Promise<Outcome> {
    return this.run({ afterDrop: false, mayOpen: true });
  }

  /** No more attempts (the client is closing). */
  stop(): void {
    this.stopped = true;
    this.abortAttempt?.();
  }

  private delay(round: number): number {
    const base = Math.min(this.pacing.maxDelayMs, this.pacing.delayMs * 2 ** Math.min(round, 30));
    const jittered = base * (1 + this.pacing.jitter * (2 * Math.random() - 1));
    return Math.max(0, Math.min(this.pacing.maxDelayMs, jittered));
  }

  private async run({ afterDrop, mayOpen, backOff = false }: { afterDrop: boolean; mayOpen: boolean; backOff?: boolean }): Promise<Outcome> {
    if (this.running) return { result: 'stopped' };
    this.running = true;
    let error: Error | undefined;
    try {
      const rounds = this.pacing.retry ? this.pacing.rounds : 1;
      for (let round = 0; round < rounds; round++) {
        // like socket.io: a reconnect waits before its first attempt too; the first connect does not
        // after a cut for flooding, the first wait is the longest one (reconnectionDelayMax, jittered)
        if (afterDrop || round > 0) await sleep(backOff && round === 0 ? this.delay(30) : this.delay(afterDrop ? round : round - 1));
        const start = this.index;
        for (let step = 0; step < this.urls.length; step++) {
          // closed by the client (or refused) meanwhile: a destroyed socket is opened only by us
          if (this.stopped || (!mayOpen && !this.socket.active)) return { result: 'stopped', error };
          if (this.socket.connected) return { result: 'connected' };
          const outcome = await this.attempt((start + step) % this.urls.length);
          mayOpen = false;
          if (outcome === null) return { result: 'connected' };
          error = outcome;
          if (this.stopped) return { result: 'stopped', error };
          // a CONNECT_ERROR from the namespace destroys the socket: the handshake was refused
          if (!this.socket.active) return { result: 'refused', error };
        }
      }
      return { result: 'exhausted', error };
    } finally {
      this.running = false;
    }
  }

  /** One connection attempt on one URL: null once connected, else what went wrong. */
  private attempt(index: number): Promise<Error | null> {
    this.index = index;
    // the manager builds each new engine from `uri`: switching it is all a new URL takes
    (this.socket.io as unknown as { uri: string }).uri = `${this.urls[index]}${this.namespace}`;
    return new Promise((resolve) => {
      const done = (error: Error | null) => {
        this.socket.off('connect', connected);
        this.socket.off('connect_error', failed);
        this.socket.off('disconnect', dropped);
        this.abortAttempt = undefined;
        resolve(error);
      };
      const connected = () => done(null);
      const failed = (error: Error) => done(error);
      const dropped = (reason: string) => done(new Error(reason));
      this.socket.on('connect', connected);
      this.socket.on('connect_error', failed);
      this.socket.on('disconnect', dropped);
      this.abortAttempt = () => done(new Error('stopped'));
      this.socket.connect();
    });
  }
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
