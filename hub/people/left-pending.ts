/**
 * Pending approvals nobody waits on any more end `interrupted` (docs/attention.md): at a hub's start
 * when no other hub process is alive (SQLite always; the waiters went with the processes), and at
 * each sweep those past their waiter's end (`expiresAt`: a waiter always gives up by then, so one
 * still pending lost its process — a hub killed in a cluster). Each end is an `approval` event.
 */
import { listLeftPendingApprovals } from '../store/approvals.js';
import { runWrite } from '../services/changes.js';
import type { HubDeps } from '../services/deps.js';
import { getSession } from '../store/sessions.js';
import { endApproval } from './approval-end.js';
import { clearPermissionIfNoneLeft } from './approvals.js';
import { HUB_STOPPED_WORDS } from './approval-wait.js';

const BATCH = 200;
/** Past its waiter's end by this much before a sweep ends it: the waiter itself ends it first. */
export const LEFT_PENDING_SLACK_MS = 5_000;

/** `all`: every pending approval (no hub process alive to wait on one); else those past their end. Returns how many ended. */
export async function expireLeftPendingApprovals(deps: HubDeps, input: { all: boolean }): Promise<number> {
  let ended = 0;
  for (;;) {
    const batch = await runWrite(deps, async (tx, changes, now) => {
      const left = await listLeftPendingApprovals(tx, { before: input.all ? null : now - LEFT_PENDING_SLACK_MS, limit: BATCH });
      let count = 0;
      const sessions = new Map<string, string>();
      for (const { approval, namespace } of left) {
        // the process its waiter waited on is gone: the hook and the runner ask again (issue 46.4)
        if (await endApproval(tx, changes, namespace, approval, { status: 'interrupted', at: now, decidedBy: null, message: HUB_STOPPED_WORDS })) count++;
        sessions.set(approval.sid, namespace);
      }
      // nobody waits here now: "needs you" without anything to decide would be untrue (an asking
      // again sets it anew)
      for (const [sid, namespace] of sessions) {
        const session = await getSession(tx, { namespace, sid });
        if (session) await clearPermissionIfNoneLeft(tx, changes, session, now);
      }
      return { listed: left.length, count };
    });
    ended += batch.count;
    if (batch.listed < BATCH) return ended;
  }
}
