/**
 * The read-only side of the SDK: one `/dashboard` socket that keeps a live map of session snapshots.
 */
import type { Socket } from 'socket.io-client';
import type { UpdateEvent } from '../protocol/broadcast.js';
import type { DashboardClientToServerEvents, ServerToClientEvents } from '../protocol/events.js';
import type { ResumeStatus, SessionSnapshot } from '../protocol/session.js';
import { applySessionUpdate, applyTurn, newerSnapshot } from './apply-update.js';
import { jitteredDelay, sleep } from './backoff.js';
import { unwrapOk, type ClientOptions } from './connection.js';
import { HubRequestError } from './errors.js';
import { HubLink, type Link } from './hub-link.js';

/** The `/dashboard` socket, typed with the swapped event maps. */
export type DashboardSocket = Socket<ServerToClientEvents, DashboardClientToServerEvents>;

export interface DashboardClientEvents {
  /** Every broadcast received (live or replayed), after it was applied to the map. */
  update: (event: UpdateEvent) => void;
  /** A snapshot in the map changed (or appeared). */
  session: (snapshot: SessionSnapshot) => void;
  /** The hub could not replay what was missed; the client resubscribed and replaced the map. */
  resync: () => void;
  /** The socket reconnected and the client resubscribed (after a failed resubscribe: once a retry succeeded). */
  reconnect: () => void;
  /** A background resubscribe failed; the client retries while connected, and resubscribes on the next connect. */
  error: (error: Error) => void;
  /**
   * The connection dropped (not by `close()`); `reason` is socket.io's, e.g. `transport close`.
   * The client reconnects by itself and then emits `reconnect`.
   */
  disconnect: (reason: string) => void;
  /**
   * A reconnect's handshake was refused (`unauthorized` / `forbidden`, e.g. the token was revoked).
   * Final: the client stops trying; connect again with another token.
   */
  refused: (error: HubRequestError) => void;
}

/** Pacing of resubscribe retries while connected: the hub answered neither ack nor error in time. */
const RESUBSCRIBE_BACKOFF = { baseMs: 250, maxMs: 5000 };

/**
 * A dashboard's live view of the hub.
 *
 * @example
 * const dashboard = await DashboardClient.connect({ url: 'http://127.0.0.1:3737', token: dashboardToken });
 * await dashboard.subscribe(); // every session of the namespace, including later ones
 * dashboard.on('session', (s) => render(s.sid, s.lifecycle.state, s.currentTurn?.prompt));
 * console.log(dashboard.sessions.size);
 */
export class DashboardClient extends HubLink<DashboardClientToServerEvents, DashboardClientEvents> {
  /** The live map: sid → snapshot, kept current by broadcasts. */
  readonly sessions = new Map<string, SessionSnapshot>();
  /** What to subscribe to again after a reconnect: undefined = nothing yet, null = all sessions. */
  private subscription: string[] | null | undefined;
  private replayRequested = false;
  /** Counts connections, so a resubscribe retry loop from an older connection stops. */
  private connection = 0;

  private constructor(link: Link<DashboardSocket>, options: ClientOptions) {
    super(link, options);
    const { socket } = link;
    socket.on('update', (event) => this.onUpdate(event));
    socket.on('resync', () => this.onResync());
    socket.on('connect', () => {
      this.connection += 1;
      if (this.connectedOnce && this.subscription !== undefined) void this.resubscribe(true).then((ok) => ok && this.listeners.emit('reconnect'));
    });
    socket.on('disconnect', (reason) => {
      if (this.closing) return;
      // the failover reconnects (to this process or the next one) and the `connect` above resubscribes
      this.listeners.emit('disconnect', reason);
    });
    // socket.io-client does not retry a handshake the namespace's middleware refused
    socket.on('connect_error', (error) => {
      if (this.closing || socket.active) return;
      const code = error.message === 'forbidden' ? 'forbidden' : 'unauthorized';
      this.listeners.emit('refused', new HubRequestError(code, `handshake refused: ${error.message}`, 'connect'));
    });
  }

  /**
   * Connects to `/dashboard` (any token of the namespace). Rejects with a `HubRequestError`.
   * @example
   * const dashboard = await DashboardClient.connect({ url, token });
   */
  static connect(options: ClientOptions): Promise<DashboardClient> {
    return HubLink.open('/dashboard', options, (link: Link<DashboardSocket>) => new DashboardClient(link, options));
  }

  /** The largest seq handed to `update` listeners (a replay the snapshots already hold is still handed over, once). */
  private emittedSeq: number | undefined;

  /** The largest broadcast seq the map includes. */
  get lastSeq(): number | undefined {
    return this.seq;
  }

  /**
   * Subscribes to the client's own events; returns an unsubscribe function.
   * @example
   * dashboard.on('resync', () => log.info('replaced the map after a replay gap'));
   */
  on<E extends keyof DashboardClientEvents>(event: E, listener: DashboardClientEvents[E]): () => void {
    return this.listeners.on(event, listener);
  }

  /**
   * `subscribe`: loads the snapshots into the map and follows their broadcasts. Without `sids`,
   * every session of the namespace, including those created later. Answers the snapshots.
   *
   * @example
   * await dashboard.subscribe({ sids: [sid] });
   */
  async subscribe(input: { sids?: string[] } = {}): Promise<SessionSnapshot[]> {
    this.subscription = input.sids ? [...(this.subscription ?? []), ...input.sids] : null;
    return this.load(input.sids, this.seq);
  }

  /**
   * `unsubscribe`: stops following (some) sessions and drops them from the map.
   * @example
   * await dashboard.unsubscribe({ sids: [sid] });
   */
  async unsubscribe(input: { sids?: string[] } = {}): Promise<void> {
    unwrapOk(await this.emitRequest('unsubscribe', input), 'unsubscribe');
    if (!input.sids) {
      this.subscription = undefined;
      this.sessions.clear();
      return;
    }
    if (Array.isArray(this.subscription)) this.subscription = this.subscription.filter((sid) => !input.sids!.includes(sid));
    for (const sid of input.sids) this.sessions.delete(sid);
  }

  /**
   * Takes the resume status from a snapshot fetched elsewhere (`GET /api/sessions/:sid`): `update`
   * bodies do not carry it, so a UI refetches after a metadata or lifecycle change. Only `resume`
   * is taken, since the rest of a fetched snapshot may be older than the map. Emits `session`;
   * answers false when the session is not in the map.
   *
   * @example
   * dashboard.setResume(sid, (await getJson(`/api/sessions/${sid}`)).resume);
   */
  setResume(sid: string, resume: ResumeStatus): boolean {
    const held = this.sessions.get(sid);
    if (!held) return false;
    this.put({ ...held, resume });
    return true;
  }

  /**
   * Disconnects for good.
   * @example
   * dashboard.close();
   */
  close(): void {
    this.disconnectForGood();
  }

  private async load(sids: string[] | undefined, sinceSeq: number | undefined, replace = false): Promise<SessionSnapshot[]> {
    if (sinceSeq !== undefined) this.replayRequested = true;
    const ack = unwrapOk(await this.emitRequest('subscribe', { ...(sids ? { sids } : {}), ...(sinceSeq !== undefined ? { sinceSeq } : {}) }), 'subscribe');
    if (replace) this.sessions.clear();
    for (const session of ack.sessions) this.put(newerSnapshot(replace ? undefined : this.sessions.get(session.sid), session));
    // The snapshots include everything up to ack.seq, so a replayed event that is processed after
    // them (socket.io may hand the replay over before or after this continuation, depending on how
    // the frames arrive) is already in them: re-applying it would roll back what updates do not
    // version (the resume status, a turn that has since closed). Replayed events processed before
    // the ack were overwritten by the snapshots just put.
    if (this.seq === undefined || ack.seq > this.seq) this.seq = ack.seq;
    return ack.sessions;
  }

  /** Resubscribes, retrying while this connection lasts; answers whether it succeeded. */
  private async resubscribe(withReplay: boolean): Promise<boolean> {
    const connection = this.connection;
    const current = () => !this.closing && this.socket.connected && this.connection === connection;
    for (let attempt = 0; ; attempt++) {
      try {
        // without a seq to replay from (e.g. a resync's refetch failed), fresh snapshots replace the map
        const sinceSeq = withReplay ? this.seq : undefined;
        await this.load(this.subscription ?? undefined, sinceSeq, sinceSeq === undefined);
        return true;
      } catch (error) {
        this.listeners.emit('error', error as Error);
      }
      if (!current()) return false; // the next connect resubscribes
      await sleep(RESUBSCRIBE_BACKOFF.baseMs + jitteredDelay(attempt, RESUBSCRIBE_BACKOFF));
      if (!current() || this.subscription === undefined) return false;
    }
  }

  private put(snapshot: SessionSnapshot): void {
    this.sessions.set(snapshot.sid, snapshot);
    this.listeners.emit('session', snapshot);
  }

  private onUpdate(event: UpdateEvent): void {
    if (this.emittedSeq !== undefined && event.seq <= this.emittedSeq) return; // seen already
    this.emittedSeq = event.seq;
    // a replayed event the snapshots already include: listeners still get it, in seq order and with
    // no gap, but the map keeps the snapshot (re-applying would roll back what updates do not version)
    if (this.seq !== undefined && event.seq <= this.seq) {
      this.listeners.emit('update', event);
      return;
    }
    this.seq = event.seq;
    const { body } = event;
    const held = this.sessions.get(body.sid);
    if (body.t === 'session-created') this.put(newerSnapshot(held, body.session));
    else if (held && body.t === 'update-session') this.put(applySessionUpdate(held, body, event.createdAt));
    else if (held && body.t === 'turn') {
      const next = applyTurn(held, body, event.createdAt);
      if (next !== held) this.put(next);
    }
    this.listeners.emit('update', event);
  }

  /** Replay was impossible: resubscribe without a seq and replace the map with fresh snapshots. */
  private onResync(): void {
    if (!this.replayRequested) return;
    this.replayRequested = false;
    this.seq = undefined;
    this.emittedSeq = undefined;
    void this.resubscribe(false).then((ok) => ok && this.listeners.emit('resync'));
  }
}
