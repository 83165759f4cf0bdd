import type { Logger } from '../log.js';

/**
 * Whether any other hub process listens on the cluster's Redis channel, so a process alone skips
 * publishing its committed batches (a publish, and the parse of its own message, on the path of
 * every write: about a tenth of a PostgreSQL hub's CPU per write, measured with bench:scale-out).
 *
 * Known two ways:
 * - a process announces itself (`hello`) once it listens, before it accepts sockets; every other
 *   process then counts as having peers at once;
 * - every `pollMs` the channel's subscribers are counted (Redis PUBSUB NUMSUB), which also finds
 *   processes that never say hello (hubs of earlier versions) and notices when the others are gone.
 * Until the first count, a process assumes peers. An event that a process skipped while a newcomer
 * was not yet known is read from the event log by the newcomer's sequencer (a later seq shows the
 * gap, and its catch-up reads every tenant's tail every 2 s): late, never lost.
 */
export interface Peers {
  /** True while another process may be listening. */
  present(): boolean;
  /** Another process said hello. */
  heard(): void;
  close(): void;
}

export interface PeersOptions {
  /** How many processes (this one included) listen on the channel. */
  count: () => Promise<number>;
  pollMs?: number;
  log: Logger;
}

const DEFAULT_POLL_MS = 500;

export function watchPeers(options: PeersOptions): Peers {
  let present = true;
  // a count started before a hello may answer after it: only a count started after the last hello counts
  let hellos = 0;
  let closed = false;
  const set = (value: boolean) => {
    if (value === present) return;
    present = value;
    options.log.info(value ? 'another hub process listens: committed events are sent to it' : 'no other hub process listens: committed events are not sent through Redis');
  };
  // one count at a time: while Redis is unreachable its client queues commands, and would queue one per tick
  let counting = false;
  const poll = async () => {
    if (counting) return;
    counting = true;
    const startedAfter = hellos;
    try {
      const count = await options.count();
      if (!closed && hellos === startedAfter) set(count > 1);
    } catch {
      // Redis unreachable: whatever is sent would be lost anyway; the adapter logs the outage
    } finally {
      counting = false;
    }
  };
  void poll();
  const timer = setInterval(() => void poll(), options.pollMs ?? DEFAULT_POLL_MS);
  timer.unref();
  return {
    present: () => present,
    heard() {
      hellos += 1;
      set(true);
    },
    close() {
      closed = true;
      clearInterval(timer);
    },
  };
}
