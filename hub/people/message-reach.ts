/**
 * How a person's message reaches a session's agent while it waits (docs/messages.md): `runner` (an
 * SDK runner holds a socket for its run: at once), `wake` (its agent's background hook wakes it: at
 * once, Claude Code's asyncRewake), `stop` (only at the agent's next stop). The page combines it
 * with the session's live activity.
 */
import { getFlavor } from '../../shared/flavors.js';
import type { MessageReach } from '../../shared/protocol/messages.js';
import { getRun } from '../store/runs.js';
import type { StoredSession } from '../store/sessions.js';
import type { Sql } from '../store/sql.js';

export async function reachOf(sql: Sql, session: StoredSession): Promise<MessageReach> {
  const run = session.lastRun?.status === 'running' ? await getRun(sql, session.lastRun.runId) : undefined;
  if (run && !run.detached) return 'runner';
  return getFlavor(session.flavor)?.hookConfig?.wakeHook ? 'wake' : 'stop';
}
