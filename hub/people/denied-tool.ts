/**
 * A denied approval's tool never runs, and the agent sends no "tool finished" for it: the running
 * tool use of that call in its turn (from the agent's PreToolUse) ends `denied` here, saying who
 * denied it and why, so the turn does not show it running until the turn closes.
 */
import type { Approval } from '../../shared/protocol/attention.js';
import type { StoredSession } from '../store/sessions.js';
import type { Tx } from '../store/sql.js';
import { completeActivity, getTurn, listRunningActivities } from '../store/turns.js';
import type { ChangeSet } from '../services/changes.js';
import { isSameCall } from './same-call.js';

export async function endDeniedToolIn(tx: Tx, changes: ChangeSet, session: StoredSession, denied: Approval, now: number): Promise<void> {
  for (const activity of await listRunningActivities(tx, session.sid)) {
    if (!isSameCall(denied, { tool: activity.tool, input: activity.input, toolUseId: activity.toolUseId })) continue;
    const output = { deniedBy: denied.decidedByLabel ?? denied.decidedBy, message: denied.message };
    if (await completeActivity(tx, { activityId: activity.activityId, status: 'denied', output, outputTruncated: false, endedAt: Math.max(now, activity.at) })) {
      changes.turn(session.namespace, (await getTurn(tx, activity.turnId))!);
    }
  }
}
