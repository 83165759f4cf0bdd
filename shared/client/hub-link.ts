/**
 * What both SDK clients are made of below their own logic: one socket kept connected by a
 * `Failover`, the seq a reconnect replays from, the client's own listeners, timed requests and
 * closing for good. What each client does on `connect`, `update`, `resync` (and, for the dashboard,
 * on a drop) stays in the client.
 */
import type { Socket } from 'socket.io-client';
import type { AckOf, ServerToClientEvents } from '../protocol/events.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, emitWithTimeout, openLink, type ClientOptions, type Failover } from './connection.js';
import { Listeners } from './listeners.js';

/** A connected socket and the failover that keeps it connected (what `openLink` answers). */
export interface Link<S extends Socket> {
  socket: S;
  failover: Failover;
}

type EventMap<Events> = { [K in keyof Events]: (...args: never[]) => void };
/** socket.io's constraint on an event map (its `EventsMap`, which socket.io-client does not export). */
type EventsMap = { [event: string]: any };
/** Any client: what `open` builds, whatever its event maps. */
type AnyHubLink = HubLink<EventsMap, any>;

/** The link plumbing `RunnerClient` and `DashboardClient` share; not exported by the SDK. */
export abstract class HubLink<Emit extends EventsMap, Events extends EventMap<Events>> {
  readonly socket: Socket<ServerToClientEvents, Emit>;
  protected readonly listeners = new Listeners<Events>();
  /** The largest broadcast seq taken in (see each client's `lastSeq`). */
  protected seq: number | undefined;
  /** Set once `connect()` resolved: from then on a socket `connect` is a reconnect. */
  protected connectedOnce = false;
  /** `close()` was called: a drop that follows is the client's own doing. */
  protected closing = false;
  private readonly failover: Failover;
  private readonly requestTimeoutMs: number;

  protected constructor(link: Link<Socket<ServerToClientEvents, Emit>>, options: ClientOptions) {
    this.socket = link.socket;
    this.failover = link.failover;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.seq = options.lastSeq;
  }

  /**
   * Opens the link on `namespace` and builds the client on it (`make` calls the client's private
   * constructor); the client is marked connected only once built, so its `connect` handler treats
   * every later `connect` as a reconnect.
   */
  protected static async open<S extends Socket, C extends AnyHubLink>(
    namespace: '/runner' | '/dashboard',
    options: ClientOptions,
    make: (link: Link<S>) => C,
  ): Promise<C> {
    const client = make(await openLink<S>(namespace, options));
    client.connectedOnce = true;
    return client;
  }

  /** The hub URL the client is connected to (or reconnecting to): one of `options.url`. */
  get url(): string {
    return this.failover.url;
  }

  /** One request with the ack timeout (default: the client's `requestTimeoutMs`); a timeout becomes a `timeout` HubRequestError. */
  protected emitRequest<E extends keyof Emit & string>(event: E, payload: Parameters<Emit[E]>[0], timeoutMs = this.requestTimeoutMs): Promise<AckOf<Emit[E]>> {
    return emitWithTimeout(this.socket, event, payload, timeoutMs);
  }

  /**
   * Disconnects now, without waiting for writes in flight, and never reconnects: for a client told
   * by the hub that another connection replaced it (reconnecting would take the place back).
   */
  abandon(): void {
    this.disconnectForGood();
  }

  /** No more reconnects, and the socket disconnects for good. */
  protected disconnectForGood(): void {
    this.closing = true;
    this.failover.stop();
    this.socket.disconnect();
  }
}
