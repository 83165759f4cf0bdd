/**
 * The queries one sweep runs, by name, and their SQLite query plans: the sweep must walk indexes,
 * never every row (checked by test/store/sweep-plans.test.ts and printed by bench/sweep.ts).
 */
import { PRUNE as PRUNE_APPLIED_REQUESTS } from './applied-requests.js';
import { PRUNE as PRUNE_APPLIED_HOOK_EVENTS } from './hook-events.js';
import type { SqliteStore } from './sqlite/sqlite-store.js';
import { queryText, type Query } from './sql.js';
import { DELETE_UPTO as DELETE_EVENTS_UPTO, SELECT_PRUNABLE_UPTO as SELECT_PRUNABLE_EVENTS } from './events.js';
import { MARK_RUNS_OF_HUB_DISCONNECTED, SELECT_LOST as SELECT_LOST_RUNS, SELECT_SILENT_DETACHED as SELECT_SILENT_DETACHED_RUNS } from './runs.js';
import { SELECT_ANY_BY_SID, SELECT_RUNNING_WITHOUT_ACTIVITY, SELECT_STALE_ACTIVE } from './sessions.js';
import { COUNT_OPEN_TURNS_OLDER_THAN, OPEN_TURNS_OLDER_THAN } from './turns.js';

export const SWEEP_QUERIES: Readonly<Record<string, Query>> = {
  openTurnsOlderThan: OPEN_TURNS_OLDER_THAN,
  // only when a long sweep logs its progress
  countOpenTurnsOlderThan: COUNT_OPEN_TURNS_OLDER_THAN,
  staleActiveSessions: SELECT_STALE_ACTIVE,
  runsOfDeadHub: MARK_RUNS_OF_HUB_DISCONNECTED,
  lostRuns: SELECT_LOST_RUNS,
  silentDetachedRuns: SELECT_SILENT_DETACHED_RUNS,
  runningSessionsWithoutActivity: SELECT_RUNNING_WITHOUT_ACTIVITY,
  sessionBySid: SELECT_ANY_BY_SID,
  prunableEvents: SELECT_PRUNABLE_EVENTS,
  deleteEventsUpto: DELETE_EVENTS_UPTO,
  pruneAppliedRequests: PRUNE_APPLIED_REQUESTS,
  pruneAppliedHookEvents: PRUNE_APPLIED_HOOK_EVENTS,
};

/** The `detail` lines of SQLite's EXPLAIN QUERY PLAN for a query, every named parameter bound to 0. */
export async function explainQueryPlan(store: SqliteStore, query: Query): Promise<string[]> {
  const sql = queryText(query, 'sqlite');
  const params = Object.fromEntries([...sql.matchAll(/@(\w+)/g)].map((m) => [m[1]!, 0]));
  const rows = await store.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params);
  return rows.map((row) => row.detail);
}

/** Every sweep query's SQLite plan, by name. */
export async function sweepQueryPlans(store: SqliteStore): Promise<Record<string, string[]>> {
  const plans: Record<string, string[]> = {};
  for (const [name, query] of Object.entries(SWEEP_QUERIES)) plans[name] = await explainQueryPlan(store, query);
  return plans;
}
