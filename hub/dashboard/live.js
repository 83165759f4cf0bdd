// @ts-check
/**
 * The live link to `/dashboard` (spec sections 5 and 10) through the SDK's `DashboardClient`, which
 * subscribes, keeps the map current, reconnects with lastSeq and resubscribes after a resync. This
 * module connects it, reports how the link is doing, and retries what the SDK leaves to its caller:
 * the first connect and the first subscribe.
 */
import { DashboardClient } from '/sdk/client/dashboard-client.js';
import { jitteredDelay } from '/sdk/client/backoff.js';

/**
 * @typedef {'connecting' | 'live' | 'reconnecting' | 'refused' | 'error'} LinkState
 * @typedef {import('./sessions.js').SessionView} SessionView
 */

const RETRY = { baseMs: 1000, maxMs: 10_000 };

/** @param {unknown} err */
const messageOf = (err) => (err instanceof Error ? err.message : String(err));

/**
 * @param {{ token: string, view: SessionView, onState: (state: LinkState, detail?: string) => void }} options
 */
export function connectLive({ token, view, onState }) {
  let closed = false;
  let attempt = 0;
  /** @type {DashboardClient | null} */
  let client = null;

  /** @param {() => void} fn */
  function retry(fn) {
    setTimeout(() => closed || fn(), RETRY.baseMs + jitteredDelay(attempt++, RETRY));
  }

  async function connect() {
    /** @type {DashboardClient} */
    let connected;
    try {
      connected = await DashboardClient.connect({ url: location.origin, token });
    } catch (err) {
      if (closed) return;
      const code = /** @type {{ code?: string }} */ (err).code;
      // A refused handshake is final; anything else (the hub is away) is retried.
      if (code === 'unauthorized' || code === 'forbidden') onState('refused', code);
      else {
        onState('reconnecting', messageOf(err));
        retry(connect);
      }
      return;
    }
    if (closed) {
      connected.close();
      return;
    }
    client = connected;
    view.attach(connected);
    connected.on('disconnect', (reason) => onState('reconnecting', reason));
    connected.on('reconnect', () => onState('live'));
    connected.on('refused', (err) => onState('refused', err.code));
    connected.on('error', (err) => onState('error', `${err.message}; retrying`));
    subscribe(connected);
  }

  /** @param {DashboardClient} c */
  async function subscribe(c) {
    try {
      await c.subscribe();
      attempt = 0;
      onState('live');
    } catch (err) {
      // Disconnected meanwhile: the SDK resubscribes on the next connect and then says `reconnect`.
      if (closed || !c.socket.connected) return;
      onState('error', `The hub did not answer the subscription (${messageOf(err)}); retrying`);
      retry(() => c.socket.connected && subscribe(c));
    }
  }

  onState('connecting');
  connect();

  return {
    close() {
      closed = true;
      client?.close();
    },
  };
}
