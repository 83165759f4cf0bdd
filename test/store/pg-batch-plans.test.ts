/**
 * A group-committed batch's reads on PostgreSQL (its sessions, its requestIds) are prepared
 * statements: each pooled connection plans them once, generically, and keeps that plan while the
 * tables grow. On a new database a plain join was planned as a hash join over a sequential scan of
 * the whole table, so every batch read every applied request (measured: 1.4 ms a batch at 11,000
 * rows). Each key must be a primary-key lookup in the plan made on an empty database and in the one
 * made on a full one; the batch's session versions and its events' namespace counter likewise once
 * the tables have statistics. No timing is asserted (bench:pg-write-cost measures the cost).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BATCH_CHECK_QUERIES, BATCH_KEYED_READ_QUERIES, BATCH_READ_QUERIES, BATCH_WRITE_QUERIES, postgresGenericPlan } from '../../hub/store/query-plans.js';
import { PgStore } from '../../hub/store/postgres/pg-store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';

const EXPECTED: Record<keyof typeof BATCH_READ_QUERIES, RegExp> = {
  sessions: /Index Scan using sessions_pkey on sessions/,
  appliedRequests: /Index (Only )?Scan using applied_requests_pkey on applied_requests/,
};

let database: TestDatabase | undefined;
let store: PgStore | undefined;
afterEach(async () => {
  await store?.close();
  await database?.drop();
  store = undefined;
  database = undefined;
});

async function expectKeyLookups(pg: PgStore): Promise<void> {
  for (const [name, query] of Object.entries(BATCH_READ_QUERIES)) {
    const plan = (await postgresGenericPlan(pg, query)).join('\n');
    expect(plan, name).not.toMatch(/Seq Scan on (sessions|applied_requests)/);
    expect(plan, name).toMatch(EXPECTED[name]!);
  }
}

describe('PostgreSQL batch statements: primary-key lookups in their cached plans', () => {
  it('on an empty database, where a join would scan', async () => {
    database = await createTestDatabase();
    store = await PgStore.open(database.url);
    await expectKeyLookups(store);
  });

  it('on 20,000 applied requests, 2,000 sessions and 2,000 tenants with statistics', async () => {
    database = await createTestDatabase();
    store = await PgStore.open(database.url);
    await store.transaction(async (tx) => {
      await tx.run(`
        INSERT INTO sessions (sid, namespace, tag, flavor, created_at, updated_at, metadata, metadata_version, agent_state_version,
          lifecycle_state, lifecycle_since, lifecycle_by, last_activity_at)
        SELECT 's' || i, 'default', 't' || i, 'claude', i, i, '{}', 1, 1, 'running', i, 'runner', i FROM generate_series(1, 2000) i`);
      await tx.run(`INSERT INTO namespaces (name, last_seq) SELECT 'tenant-' || i, 0 FROM generate_series(1, 2000) i`);
      await tx.run(`
        INSERT INTO applied_requests (sid, field, request_id, version, value, at)
        SELECT 's' || (i % 2000 + 1), 'metadata', 'r' || i, i, '{}', i FROM generate_series(1, 20000) i`);
      // a day of hook traffic: ten turns a session, a tool each, an applied event id per hook call
      await tx.run(`INSERT INTO hook_sessions (namespace, tag, turns_ended, last_at, last_seq) SELECT 'default', 't' || i, 10, i, i FROM generate_series(1, 2000) i`);
      await tx.run(`INSERT INTO hook_events (namespace, event_id, outcome, applied_at) SELECT 'default', 'e' || i, 'applied', i FROM generate_series(1, 20000) i`);
      await tx.run(`
        INSERT INTO turns (turn_id, sid, kind, prompt, prompt_truncated, prompt_id, status, opened_at, closed_at, last_activity_at)
        SELECT 'turn' || i, 's' || (i % 2000 + 1), 'prompt', 'go', 0, 'hook-' || (i / 2000) || '-x', 'completed', i, i, NULL FROM generate_series(1, 20000) i`);
      await tx.run(`
        INSERT INTO activities (activity_id, turn_id, sid, tool_use_id, tool, input, output, at, truncated, status, ended_at, ord)
        SELECT 'a' || i, 'turn' || i, 's' || (i % 2000 + 1), 'tool' || i, 'Bash', NULL, NULL, i, 0, 'done', i, 1 FROM generate_series(1, 20000) i`);
    });
    for (const table of ['hook_sessions', 'hook_events', 'turns', 'activities']) await store.run(`ANALYZE ${table}`);
    await store.run('ANALYZE sessions');
    await store.run('ANALYZE applied_requests');
    await store.run('ANALYZE namespaces');
    await expectKeyLookups(store);
    // the batch's session versions: planned from statistics, by primary key once the table has some
    // (on a never-analyzed near-empty table PostgreSQL scans it, and plans again after autovacuum's ANALYZE)
    const plan = (await postgresGenericPlan(store, BATCH_WRITE_QUERIES.sessionVersions!)).join('\n');
    expect(plan).not.toMatch(/Seq Scan on sessions/);
    expect(plan).toMatch(/Bitmap Index Scan on sessions_pkey|Index Scan using sessions_pkey/);
    // the events' statement raises its namespace's counter: one row of 2,000 tenants', by key
    const events = (await postgresGenericPlan(store, BATCH_WRITE_QUERIES.events!)).join('\n');
    expect(events).not.toMatch(/Seq Scan on namespaces/);
    expect(events).toMatch(/Bitmap Index Scan on namespaces_pkey|Index Scan using namespaces_pkey/);
    // the per-event columns of a batch's sessions (activity, presence, attention, current turn), folded: by key too
    const patches = (await postgresGenericPlan(store, BATCH_WRITE_QUERIES.sessionPatches!)).join('\n');
    expect(patches).not.toMatch(/Seq Scan on sessions/);
    expect(patches).toMatch(/Bitmap Index Scan on sessions_pkey|Index Scan using sessions_pkey/);
    // a batch's turns closed, and their tools still running abandoned: by key, or through the index of
    // open turns only (at most one a session)
    const closes = (await postgresGenericPlan(store, BATCH_WRITE_QUERIES.turnsClosed!)).join('\n');
    expect(closes).not.toMatch(/Seq Scan on turns/);
    expect(closes).toMatch(/Index Scan using turns_pkey|Bitmap Index Scan on turns_pkey|Index Scan using turns_open_by_\w+ on turns/);
    const abandons = (await postgresGenericPlan(store, BATCH_WRITE_QUERIES.runningToolsAbandoned!)).join('\n');
    expect(abandons).not.toMatch(/Seq Scan on activities/);
    // a batch's tools started (each numbered after its turn's others) and ended: by key
    for (const name of ['toolsStarted', 'toolsEnded']) {
      const plan = (await postgresGenericPlan(store, BATCH_WRITE_QUERIES[name]!)).join('\n');
      expect(plan, name).not.toMatch(/Seq Scan on activities/);
      expect(plan, name).toMatch(/Index (Only )?Scan (Backward )?(using|on) activities_(pkey|by_turn)|Bitmap Index Scan on activities_(pkey|by_turn)/);
    }
    // the batch's other reads (hook rows, turns, tools, approvals, messages, usage): through indexes,
    // never every row of a table (the applied hook event ids were read by a scan of all of them)
    // and the checks of rows taken as new on carried rows; none matching the namespace alone in an
    // index and filtering every row of it (one tenant: the whole table)
    const scans: Record<string, string> = {};
    for (const [name, query] of Object.entries({ ...BATCH_KEYED_READ_QUERIES, ...BATCH_CHECK_QUERIES })) {
      const plan = (await postgresGenericPlan(store, query)).join('\n');
      if (/Seq Scan on (sessions|hook_events|hook_sessions|turns|activities|applied_requests)\b/.test(plan)) scans[name] = plan;
      if (/^\s*Index Cond: \(\(?(\w+\.)?namespace = \$\d+\)?\)$/m.test(plan)) scans[name] = plan;
    }
    expect(scans).toEqual({});
  });
});
