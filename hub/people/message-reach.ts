/**
 * How a person's message reaches a session's agent while it waits (docs/messages.md): `runner` (an
 * SDK runner holds a socket for its run: at once), `wake` (its agent's background hook wakes it: at
 * once, Claude Code's asyncRewake), `stop` (only at the agent's next stop). The page combines it
 * with the session's live activity.
 *
 * A waking hook waits only so long after each stop (the registry's `wakeHook.waitMs`, 10 minutes
 * for Claude Code): past that, the idle agent cannot be woken, and saying "now" would leave a
 * person's reply unread until they type in the terminal. So `wake` holds from the last stop until
 * `wakeUntil`, counted from the stored stop (the last turn's close) rather than from a waiter
 * registered in this process, so every hub process of a cluster answers alike.
 */
import { getFlavor } from '../../shared/flavors.js';
import type { MessageReach } from '../../shared/protocol/messages.js';
import { getRun } from '../store/runs.js';
import type { StoredSession } from '../store/sessions.js';
import type { Sql } from '../store/sql.js';
import { getLatestTurn } from '../store/turns.js';

export interface Reach {
  reach: MessageReach;
  /** When the waiter of the last stop gives up (a flavor with a waking hook, between turns). */
  wakeUntil?: number;
}

export async function reachOf(sql: Sql, session: StoredSession, now: number): Promise<Reach> {
  const run = session.lastRun?.status === 'running' ? await getRun(sql, session.lastRun.runId) : undefined;
  if (run && !run.detached) return { reach: 'runner' };
  const wake = getFlavor(session.flavor)?.hookConfig?.wakeHook;
  if (!wake) return { reach: 'stop' };
  const latest = await getLatestTurn(sql, session.sid);
  // a turn running: its stop starts a waiter
  if (latest && latest.closedAt === null) return { reach: 'wake' };
  // a session opened by a stop with no turn of its own: that stop is its last activity
  const wakeUntil = (latest?.closedAt ?? session.lastActivityAt) + wake.waitMs;
  return { reach: wakeUntil > now ? 'wake' : 'stop', wakeUntil };
}
