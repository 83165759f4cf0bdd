/**
 * An approval whose waiter's hub process stopped or died before anyone decided ends `interrupted`
 * (issue 46.4): the hook and the runner ask again on the next hub. The one way it ends, whether the
 * stopping hub ends it itself (./approval-wait.ts) or the next start finds it left pending
 * (./left-pending.ts): nobody waits here on it now, so the session stops reading "needs you" when
 * nothing is left to decide (an asking again sets it anew).
 */
import type { Approval } from '../../shared/protocol/attention.js';
import { getSession } from '../store/sessions.js';
import type { Tx } from '../store/sql.js';
import type { ChangeSet } from '../services/changes.js';
import { endApproval } from './approval-end.js';
import { clearPermissionIfNoneLeft } from './approvals.js';

/** What an approval the hub's stop ended says. */
export const HUB_STOPPED_WORDS = 'the hub stopped or restarted before anyone decided';

/** Ends each pending approval of `approvals` `interrupted`; false for one that had ended already. Clears each session's "needs you" left with nothing pending. */
export async function endInterruptedIn(tx: Tx, changes: ChangeSet, approvals: readonly { approval: Approval; namespace: string }[], now: number): Promise<number> {
  let count = 0;
  const sessions = new Map<string, string>();
  for (const { approval, namespace } of approvals) {
    if (!(await endApproval(tx, changes, namespace, approval, { status: 'interrupted', at: now, decidedBy: null, message: HUB_STOPPED_WORDS }))) continue;
    count++;
    sessions.set(approval.sid, namespace);
  }
  for (const [sid, namespace] of sessions) {
    const session = await getSession(tx, { namespace, sid });
    if (session) await clearPermissionIfNoneLeft(tx, changes, session, now);
  }
  return count;
}
