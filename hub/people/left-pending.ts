/**
 * Pending approvals nobody waits on any more end `interrupted` (docs/attention.md): at a hub's start
 * when no other hub process is alive (SQLite always; the waiters went with the processes), and at
 * each sweep those past their waiter's end (`expiresAt`: a waiter always gives up by then, so one
 * still pending lost its process — a hub killed in a cluster). Each end is an `approval` event.
 */
import { listLeftPendingApprovals } from '../store/approvals.js';
import { runWrite } from '../services/changes.js';
import type { HubDeps } from '../services/deps.js';
import { endInterruptedIn } from './hub-stopped.js';

const BATCH = 200;
/** Past its waiter's end by this much before a sweep ends it: the waiter itself ends it first. */
export const LEFT_PENDING_SLACK_MS = 5_000;

/** `all`: every pending approval (no hub process alive to wait on one); else those past their end. Returns how many ended. */
export async function expireLeftPendingApprovals(deps: HubDeps, input: { all: boolean }): Promise<number> {
  let ended = 0;
  for (;;) {
    const batch = await runWrite(deps, async (tx, changes, now) => {
      const left = await listLeftPendingApprovals(tx, { before: input.all ? null : now - LEFT_PENDING_SLACK_MS, limit: BATCH });
      // the process its waiter waited on is gone: the hook and the runner ask again (issue 46.4)
      const count = await endInterruptedIn(tx, changes, left, now);
      return { listed: left.length, count };
    });
    ended += batch.count;
    if (batch.listed < BATCH) return ended;
  }
}
