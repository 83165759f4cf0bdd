// @ts-check
/**
 * The live link to `/dashboard` (spec sections 5 and 10): subscribe to every session, apply
 * `update`s with a larger seq than the snapshots, reconnect with `lastSeq`, and re-subscribe on
 * `resync`. Uses the socket.io client the hub serves at /socket.io/socket.io.min.js (global `io`).
 */

/**
 * @typedef {'connecting' | 'live' | 'reconnecting' | 'refused' | 'error'} LinkState
 * @typedef {import('./sessions.js').SessionStore} SessionStore
 * @typedef {import('./sessions.js').UpdateEvent} UpdateEvent
 */

const ACK_TIMEOUT_MS = 10_000;
/** Resyncs in a row without a live event before we stop and say so, rather than loop. */
const MAX_RESYNCS = 5;

/**
 * @param {{ token: string, store: SessionStore, onState: (state: LinkState, detail?: string) => void }} options
 */
export function connectLive({ token, store, onState }) {
  /** The highest seq the page's state includes. */
  let appliedSeq = 0;
  /** The seq of the latest subscribe ack; a re-subscribe after a gap replays from here. */
  let ackSeq = 0;
  /** Events that arrived while a subscribe was in flight; applied after its snapshots. */
  /** @type {UpdateEvent[] | null} */
  let pending = null;
  let resyncs = 0;
  let closed = false;

  // @ts-expect-error io is the global from socket.io.min.js
  const socket = /** @type {any} */ (window.io)('/dashboard', {
    // A function, so that every reconnect sends the latest seq.
    auth: (/** @type {(auth: object) => void} */ cb) => cb(appliedSeq > 0 ? { token, lastSeq: appliedSeq } : { token }),
  });

  onState('connecting');

  /** @param {number | undefined} sinceSeq */
  async function subscribe(sinceSeq) {
    pending = pending ?? [];
    let ack;
    try {
      ack = await socket.timeout(ACK_TIMEOUT_MS).emitWithAck('subscribe', sinceSeq === undefined ? {} : { sinceSeq });
    } catch {
      pending = null;
      if (socket.connected) onState('error', 'The hub did not answer the subscription; retrying');
      if (socket.connected && !closed) setTimeout(() => socket.connected && subscribe(sinceSeq), 2000);
      return;
    }
    if (!ack?.ok) {
      pending = null;
      onState('error', ack?.error?.message ?? 'subscription refused');
      return;
    }
    store.replaceAll(ack.sessions);
    appliedSeq = ack.seq;
    ackSeq = ack.seq;
    const buffered = pending;
    pending = null;
    for (const event of buffered) applyEvent(event);
    onState('live');
  }

  /** @param {UpdateEvent} event */
  function applyEvent(event) {
    if (pending) {
      pending.push(event);
      return;
    }
    if (typeof event?.seq !== 'number' || event.seq <= appliedSeq) return; // already in the snapshots
    appliedSeq = event.seq;
    resyncs = 0;
    store.apply(event);
  }

  socket.on('connect', () => {
    subscribe(undefined);
  });
  socket.on('update', applyEvent);
  socket.on('resync', () => {
    resyncs += 1;
    if (resyncs > MAX_RESYNCS) {
      onState('error', 'The hub keeps asking to resync; reload the page');
      return;
    }
    // From the seq of the snapshots just received: without sinceSeq the hub would replay from the
    // handshake's lastSeq again, and answer the same gap.
    subscribe(ackSeq);
  });
  socket.on('connect_error', (/** @type {Error} */ err) => {
    // A refusal by the namespace's middleware is final: socket.io does not retry it.
    if (err.message === 'unauthorized' || err.message === 'forbidden' || !socket.active) {
      onState('refused', err.message);
    } else {
      onState('reconnecting', err.message);
    }
  });
  socket.on('disconnect', (/** @type {string} */ reason) => {
    if (closed) return;
    onState('reconnecting', reason);
    // The hub closed us on purpose; try once more, a refused token then shows as refused.
    if (reason === 'io server disconnect') setTimeout(() => !closed && socket.connect(), 1000);
  });

  return {
    close() {
      closed = true;
      socket.disconnect();
    },
    get seq() {
      return appliedSeq;
    },
  };
}
