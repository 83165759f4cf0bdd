/**
 * The queries one sweep runs, by name, and their SQLite query plans: the sweep must walk indexes,
 * never every row (checked by test/store/sweep-plans.test.ts and printed by bench/sweep.ts). The
 * same for the session list's filter combinations and the usage report (test/store/session-list-plans.test.ts),
 * and for a group-committed batch's reads on PostgreSQL (test/store/pg-batch-plans.test.ts).
 */
import { ASSERT_NOT_APPLIED as ASSERT_REQUESTS_NOT_APPLIED, PRUNE as PRUNE_APPLIED_REQUESTS, SELECT_MANY as SELECT_APPLIED_REQUESTS } from './applied-requests.js';
import { ASSERT_NOT_APPLIED as ASSERT_HOOK_EVENTS_NOT_APPLIED, PRUNE as PRUNE_APPLIED_HOOK_EVENTS, SELECT_MANY_EVENTS as SELECT_APPLIED_HOOK_EVENTS, SELECT_MANY_SESSIONS as SELECT_HOOK_SESSIONS } from './hook-events.js';
import { SELECT_PENDING_OF_SESSIONS } from './approvals.js';
import { PROMPT_TURNS_AT_COUNTER } from './hook-prompt-turns.js';
import { SELECT_OF_SESSIONS as SELECT_TAKERS_OF_SESSIONS } from './message-takers.js';
import { SELECT_QUEUED_OF_SESSIONS } from './messages.js';
import { SELECT_OF_SESSIONS as SELECT_RESUME_TOKENS_OF_SESSIONS } from './resume-tokens.js';
import type { SqliteStore } from './sqlite/sqlite-store.js';
import { foldedPatchText, queryText, type Query } from './sql.js';
import { DELETE_UPTO as DELETE_EVENTS_UPTO, INSERT_EVENT, SELECT_PRUNABLE_UPTO as SELECT_PRUNABLE_EVENTS } from './events.js';
import { MARK_RUNS_OF_HUB_DISCONNECTED, SELECT_AGENT_SILENT as SELECT_AGENT_SILENT_RUNS, SELECT_LOST as SELECT_LOST_RUNS, SELECT_SILENT_DETACHED as SELECT_SILENT_DETACHED_RUNS } from './runs.js';
import { SELECT_ANY_BY_SID, SELECT_MANY_BY_SID, SELECT_MANY_BY_TAG, SELECT_RUNNING_WITHOUT_ACTIVITY, SELECT_STALE_ACTIVE, SESSION_KEY, SESSION_PATCH_COLUMNS } from './sessions.js';
import type { PgStore } from './postgres/pg-store.js';
import { toPositional } from './postgres/named-params.js';
import { listSessionsQuery } from './session-list.js';
import { STORE_VERSION_PG } from './metadata-versions.js';
import { ABANDON_RUNNING_OF_TURN, ACTIVITIES_OF_SESSIONS, ASSERT_NO_ACTIVITIES, CLOSE_TURN, COMPLETE_ACTIVITY, INSERT_ACTIVITY, COUNT_OPEN_TURNS_OLDER_THAN, CURRENT_TURNS, OPEN_TURNS_OLDER_THAN, RUNNING_ACTIVITIES_OF_SESSIONS, TURNS_WITH_RUNNING_OF_SESSIONS } from './turns.js';
import { SESSION_TOTALS, TOTALS_OF_SESSIONS, USAGE_OF_CURRENT_TURNS, USAGE_OF_TURNS, usageReportQuery } from './usage.js';

export const SWEEP_QUERIES: Readonly<Record<string, Query>> = {
  openTurnsOlderThan: OPEN_TURNS_OLDER_THAN,
  // only when a long sweep logs its progress
  countOpenTurnsOlderThan: COUNT_OPEN_TURNS_OLDER_THAN,
  staleActiveSessions: SELECT_STALE_ACTIVE,
  runsOfDeadHub: MARK_RUNS_OF_HUB_DISCONNECTED,
  lostRuns: SELECT_LOST_RUNS,
  silentDetachedRuns: SELECT_SILENT_DETACHED_RUNS,
  agentSilentRuns: SELECT_AGENT_SILENT_RUNS,
  runningSessionsWithoutActivity: SELECT_RUNNING_WITHOUT_ACTIVITY,
  sessionBySid: SELECT_ANY_BY_SID,
  prunableEvents: SELECT_PRUNABLE_EVENTS,
  deleteEventsUpto: DELETE_EVENTS_UPTO,
  pruneAppliedRequests: PRUNE_APPLIED_REQUESTS,
  pruneAppliedHookEvents: PRUNE_APPLIED_HOOK_EVENTS,
};

const AFTER = { at: 0, sid: '' };

/** GET /api/sessions: each filter alone, the ones a dashboard combines, with and without a cursor. */
export const SESSION_LIST_QUERIES: Readonly<Record<string, Query>> = {
  byActivity: listSessionsQuery({ sort: 'activity' }),
  byActivityAfterCursor: listSessionsQuery({ sort: 'activity', after: AFTER }),
  byUpdate: listSessionsQuery({ sort: 'updated' }),
  byUpdateAfterCursor: listSessionsQuery({ sort: 'updated', after: AFTER }),
  state: listSessionsQuery({ sort: 'activity', state: 'running' }),
  flavor: listSessionsQuery({ sort: 'activity', flavor: 'any-flavor' }),
  stateAndFlavor: listSessionsQuery({ sort: 'activity', state: 'running', flavor: 'any-flavor' }),
  project: listSessionsQuery({ sort: 'activity', project: '/p' }),
  projectAfterCursor: listSessionsQuery({ sort: 'activity', project: '/p', after: AFTER }),
  search: listSessionsQuery({ sort: 'activity', q: 'x' }),
  searchAfterCursor: listSessionsQuery({ sort: 'activity', q: 'x', after: AFTER }),
  projectAndSearch: listSessionsQuery({ sort: 'activity', project: '/p', q: 'x' }),
};

/** GET /api/usage and the snapshot's totals. */
export const USAGE_QUERIES: Readonly<Record<string, Query>> = {
  sessionTotals: SESSION_TOTALS,
  byDay: usageReportQuery('day'),
  byFlavor: usageReportQuery('flavor'),
  byProject: usageReportQuery('project'),
  byModel: usageReportQuery('model'),
};

/** The `detail` lines of SQLite's EXPLAIN QUERY PLAN for a query, every named parameter bound to 0. */
export async function explainQueryPlan(store: SqliteStore, query: Query): Promise<string[]> {
  const sql = queryText(query, 'sqlite');
  const params = Object.fromEntries([...sql.matchAll(/@(\w+)/g)].map((m) => [m[1]!, 0]));
  const rows = await store.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params);
  return rows.map((row) => row.detail);
}

/** Every query's SQLite plan, by name. */
export async function queryPlans(store: SqliteStore, queries: Readonly<Record<string, Query>>): Promise<Record<string, string[]>> {
  const plans: Record<string, string[]> = {};
  for (const [name, query] of Object.entries(queries)) plans[name] = await explainQueryPlan(store, query);
  return plans;
}

/** Every sweep query's SQLite plan, by name. */
export const sweepQueryPlans = (store: SqliteStore) => queryPlans(store, SWEEP_QUERIES);

/** What a group-committed batch reads up front (batch-reads.ts), once per batch while its lock is held. */
export const BATCH_READ_QUERIES: Readonly<Record<string, Query>> = {
  sessions: SELECT_MANY_BY_SID,
  appliedRequests: SELECT_APPLIED_REQUESTS,
};

/** The rest of a batch's reads (WriteReads): keys the batch names, each found through an index whatever the tables hold. */
export const BATCH_KEYED_READ_QUERIES: Readonly<Record<string, Query>> = {
  sessionsByTag: SELECT_MANY_BY_TAG,
  hookSessions: SELECT_HOOK_SESSIONS,
  appliedHookEvents: SELECT_APPLIED_HOOK_EVENTS,
  hookPromptTurns: PROMPT_TURNS_AT_COUNTER,
  currentTurns: CURRENT_TURNS,
  usageOfCurrentTurns: USAGE_OF_CURRENT_TURNS,
  usageOfTurns: USAGE_OF_TURNS,
  usageTotals: TOTALS_OF_SESSIONS,
  activitiesByToolUse: ACTIVITIES_OF_SESSIONS,
  turnsWithRunningTools: TURNS_WITH_RUNNING_OF_SESSIONS,
  runningActivities: RUNNING_ACTIVITIES_OF_SESSIONS,
  pendingApprovals: SELECT_PENDING_OF_SESSIONS,
  queuedMessages: SELECT_QUEUED_OF_SESSIONS,
  messageTakers: SELECT_TAKERS_OF_SESSIONS,
  resumeTokens: SELECT_RESUME_TOKENS_OF_SESSIONS,
};

/** On carried rows, what a batch takes as new unread and checks in the same round trip (sql.ts, Tx.carried): a key lookup each. */
export const BATCH_CHECK_QUERIES: Readonly<Record<string, Query>> = {
  requestsNotApplied: ASSERT_REQUESTS_NOT_APPLIED,
  hookEventsNotApplied: ASSERT_HOOK_EVENTS_NOT_APPLIED,
  noActivities: ASSERT_NO_ACTIVITIES,
};

/**
 * A batch's statements for its sessions' new metadata versions, its events with the namespace's
 * counter, and its sessions' per-event columns (PostgreSQL).
 */
export const BATCH_WRITE_QUERIES: Readonly<Record<string, Query>> = {
  sessionVersions: STORE_VERSION_PG.many!,
  events: INSERT_EVENT.many!,
  // a batch's session patches folded, every column set (each set of them is planned the same way)
  sessionPatches: foldedPatchText('sessions', SESSION_KEY, SESSION_PATCH_COLUMNS, 'many'),
  turnsClosed: CLOSE_TURN.many!,
  runningToolsAbandoned: ABANDON_RUNNING_OF_TURN.many!,
  toolsStarted: INSERT_ACTIVITY.many!,
  toolsEnded: COMPLETE_ACTIVITY.many!,
};

let probes = 0;

/**
 * PostgreSQL's generic plan for a query (EXPLAIN, costs off), one line per row: the plan a pooled
 * connection keeps for a prepared statement after its first executions, whatever the parameters and
 * the table sizes later. Planned on the database as it is now.
 */
export async function postgresGenericPlan(store: PgStore, query: Query): Promise<string[]> {
  const { text, names } = toPositional(queryText(query, 'postgres'));
  const name = `plan_probe_${++probes}`;
  return store.transaction(async (tx) => {
    await tx.run(`SET LOCAL plan_cache_mode = force_generic_plan`);
    await tx.run(`PREPARE ${name} AS ${text}`);
    try {
      const rows = await tx.all<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) EXECUTE ${name}(${names.map(() => 'NULL').join(', ')})`);
      return rows.map((row) => row['QUERY PLAN']);
    } finally {
      await tx.run(`DEALLOCATE ${name}`);
    }
  });
}
