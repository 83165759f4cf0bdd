/**
 * How a person's message reaches a session's agent while it waits (docs/messages.md): `runner` (an
 * SDK runner holds a socket for its run: at once), `wake` (its agent's background hook wakes it: at
 * once, Claude Code's asyncRewake), `stop` (only at the agent's next stop). The page combines it
 * with the session's live activity.
 *
 * `wake` between turns is what is true now, never a clock's guess (issue 34): a waiter of the
 * session is waiting on a hub process at this moment (the registry of live waits, other processes
 * asked through the cluster: ../socket/waiter-presence.ts), and `wakeUntil` is
 * when it gives up. A waiter gone (its agent killed, or a hub restart it has not come back from
 * yet) leaves `stop`, so the page never says "now" for a reply that would stay queued.
 */
import { getFlavor } from '../../shared/flavors.js';
import type { MessageReach } from '../../shared/protocol/messages.js';
import type { HubDeps } from '../services/deps.js';
import { getRun } from '../store/runs.js';
import type { StoredSession } from '../store/sessions.js';
import { getLatestTurn } from '../store/turns.js';
import { liveWaiterUntil } from './message-waiters.js';

export interface Reach {
  reach: MessageReach;
  /** When the waiter waiting now gives up (a flavor with a waking hook, between turns). */
  wakeUntil?: number;
}

export async function reachOf(deps: HubDeps, session: StoredSession): Promise<Reach> {
  const run = session.lastRun?.status === 'running' ? await getRun(deps.store, session.lastRun.runId) : undefined;
  if (run && !run.detached) return { reach: 'runner' };
  const wake = getFlavor(session.flavor)?.hookConfig?.wakeHook;
  if (!wake) return { reach: 'stop' };
  const wakeUntil = liveWaiterUntil(deps, session.namespace, session.tag) ?? (await deps.waiterPresence?.untilElsewhere(session.namespace, session.tag));
  if (wakeUntil !== undefined) return { reach: 'wake', wakeUntil };
  const latest = await getLatestTurn(deps.store, session.sid);
  // a turn running: its stop starts a waiter
  if (latest && latest.closedAt === null) return { reach: 'wake' };
  return { reach: 'stop' };
}
