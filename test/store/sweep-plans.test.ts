import { afterEach, describe, expect, it } from 'vitest';
import { SWEEP_QUERIES, sweepQueryPlans } from '../../hub/store/query-plans.js';
import { insertRun, setRunDisconnected } from '../../hub/store/runs.js';
import { SqliteStore } from '../../hub/store/sqlite/sqlite-store.js';
import { insertSession, updateCurrentTurn, updateLastRun, updatePresence } from '../../hub/store/sessions.js';
import { insertTurn } from '../../hub/store/turns.js';

const EXPECTED_INDEX: Record<keyof typeof SWEEP_QUERIES, RegExp> = {
  openTurnsOlderThan: /^SEARCH turns USING INDEX turns_open_by_activity /,
  countOpenTurnsOlderThan: /^SEARCH turns USING (COVERING )?INDEX turns_open_by_activity /,
  staleActiveSessions: /^SEARCH sessions USING INDEX sessions_active_by_alive /,
  runsOfDeadHub: /^SEARCH runs USING INDEX runs_live_by_hub /,
  lostRuns: /^SEARCH runs USING INDEX runs_live_disconnected /,
  // driven by running sessions oldest activity first; each run then found by its primary key
  silentDetachedRuns: /^SEARCH s USING INDEX sessions_running_by_activity /,
  agentSilentRuns: /^SEARCH runs USING INDEX runs_live_by_agent_alive /,
  runningSessionsWithoutActivity: /^SEARCH sessions USING INDEX sessions_running_by_activity /,
  sessionBySid: /^SEARCH sessions USING INDEX sqlite_autoindex_sessions_1 \(sid=\?\)/,
  prunableEvents: /^SEARCH events USING PRIMARY KEY \(namespace=\? AND seq<\?\)/,
  deleteEventsUpto: /^SEARCH events USING PRIMARY KEY \(namespace=\? AND seq<\?\)/,
  pruneAppliedRequests: /^SEARCH applied_requests USING INDEX applied_requests_by_age /,
  pruneAppliedHookEvents: /^SEARCH hook_events USING INDEX hook_events_by_age /,
};

/**
 * A mix like a busy hub's: most sessions ended and inactive, some running, a tenth with open turns,
 * and every third run (live or not) from the hook bridge, detached.
 */
async function seed(store: SqliteStore, count: number): Promise<void> {
  await store.transaction(async (tx) => {
    for (let i = 0; i < count; i++) {
      const sid = `s${i}`;
      await insertSession(tx, { sid, namespace: 'default', tag: sid, flavor: 'claude', parentSid: null, metadata: {}, now: i });
      const live = i % 10 === 0;
      const detached = i % 3 === 0;
      await insertRun(tx, { runId: `r${i}`, sid, now: i, pid: null, detached, hubId: detached ? null : 'hub-1' });
      await updateLastRun(tx, { sid, runId: `r${i}`, status: live ? 'running' : 'success', endedAt: live ? null : i, reason: null, now: i });
      await updatePresence(tx, { sid, active: live, activeAt: i, aliveAt: i, thinking: false });
      if (live && i % 20 === 0) await setRunDisconnected(tx, { runId: `r${i}`, at: i, hubId: null });
      if (live) {
        await insertTurn(tx, { turnId: `t${i}`, sid, kind: 'prompt', prompt: 'p', promptTruncated: false, promptId: null, status: 'open', openedAt: i, closedAt: null });
        await updateCurrentTurn(tx, { sid, turnId: `t${i}`, now: i });
      }
    }
  });
}

let store: SqliteStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

describe('sweep query plans', () => {
  for (const [label, rows] of [
    ['an empty database', 0],
    ['a seeded database with statistics (ANALYZE)', 3000],
  ] as const) {
    it(`every sweep query searches an index on ${label}, never scanning a table`, async () => {
      store = SqliteStore.open(':memory:');
      if (rows > 0) {
        await seed(store, rows);
        store.db.exec('ANALYZE');
      }
      const plans = await sweepQueryPlans(store);
      expect(Object.keys(plans).sort()).toEqual(Object.keys(EXPECTED_INDEX).sort());
      for (const [name, plan] of Object.entries(plans)) {
        expect(plan.some((line) => /^SCAN /.test(line)), `${name}: ${plan.join(' | ')}`).toBe(false);
        expect(plan.some((line) => EXPECTED_INDEX[name]!.test(line)), `${name}: ${plan.join(' | ')}`).toBe(true);
      }
    });
  }
});
