/**
 * The session list at 10,000 sessions (GET /api/sessions?q&flavor&state&project&sort): each filter
 * combination walks an index in sort order (no table scan, no sort of the whole table) on SQLite and
 * on PostgreSQL, and paging through every combination returns exactly the matching sessions, in
 * order, each once — with many ties on the sort key. No timing is asserted (bench/ measures speed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explainQueryPlan, queryPlans, SESSION_LIST_QUERIES, USAGE_QUERIES } from '../../hub/store/query-plans.js';
import { listSessionsPage, insertSession, touchActivity, updateLifecycle, type StoredSession } from '../../hub/store/sessions.js';
import { listSessionsQuery, listSessionsParams, type SessionListQuery } from '../../hub/store/session-list.js';
import type { Store } from '../../hub/store/sql.js';
import type { JsonObject } from '../../shared/protocol/json.js';
import { SqliteStore } from '../../hub/store/sqlite/sqlite-store.js';
import { insertTurn } from '../../hub/store/turns.js';
import { STORE_ENGINES, type EngineTarget } from '../helpers/store-engines.js';

const COUNT = 10_000;
const FLAVORS = ['claude', 'codex', 'gemini'];
const STATES = ['running', 'idle', 'ended', 'archived'] as const;

interface Seeded {
  sid: string;
  namespace: string;
  flavor: string;
  state: string;
  project: string;
  lastActivityAt: number;
  text: string;
}

/** 10,000 sessions in two namespaces; activity times repeat (ties); every 10th has a prompt. */
async function seed(store: Store): Promise<Seeded[]> {
  const seeded: Seeded[] = [];
  await store.transaction(async (tx) => {
    for (let i = 0; i < COUNT; i++) {
      const sid = `s${String(i).padStart(5, '0')}`;
      const namespace = i % 5 === 0 ? 'other' : 'default';
      const flavor = FLAVORS[i % 3]!;
      const state = STATES[i % 4]!;
      const project = `/work/p${i % 40}`;
      const metadata: JsonObject = i % 2 === 0 ? { path: `${project}/sub`, projectRoot: project, title: `Task ${i}` } : { path: project };
      await insertSession(tx, { sid, namespace, tag: `tag-${i}`, flavor, parentSid: null, metadata, now: 1000 });
      const lastActivityAt = 1_000_000 + (i % 997) * 10;
      await touchActivity(tx, { sid, now: lastActivityAt });
      if (state !== 'running') await updateLifecycle(tx, { sid, state, since: 2000, reason: null, by: 'hub' });
      let prompt = '';
      if (i % 10 === 3) {
        prompt = `please fix needle-${i % 7} now`;
        await insertTurn(tx, { turnId: `t${i}`, sid, kind: 'prompt', prompt, promptTruncated: false, promptId: null, status: 'completed', openedAt: 1500, closedAt: 1600 });
      }
      seeded.push({ sid, namespace, flavor, state, project, lastActivityAt, text: [`tag-${i}`, i % 2 === 0 ? `Task ${i}` : '', `${project}${i % 2 === 0 ? '/sub' : ''}`, prompt].join('\n').toLowerCase() });
    }
  });
  return seeded;
}

const byActivity = (a: Seeded, b: Seeded) => b.lastActivityAt - a.lastActivityAt || (a.sid < b.sid ? 1 : -1);

/** Pages of `limit` through the store, following the last row as the cursor. */
async function walk(store: Store, query: SessionListQuery, limit: number): Promise<StoredSession[]> {
  const seen: StoredSession[] = [];
  let after: { at: number; sid: string } | undefined;
  for (;;) {
    const page = await listSessionsPage(store, { ...query, namespace: 'default', limit, after });
    seen.push(...page);
    if (page.length < limit) return seen;
    const last = page[page.length - 1]!;
    after = { at: last.lastActivityAt, sid: last.sid };
  }
}

const FILTERS: SessionListQuery[] = [
  { sort: 'activity' },
  { sort: 'activity', state: 'idle' },
  { sort: 'activity', flavor: 'gemini' },
  { sort: 'activity', state: 'running', flavor: 'codex' },
  { sort: 'activity', project: '/work/p7' },
  { sort: 'activity', q: 'NEEDLE-3' },
  { sort: 'activity', q: 'task 12' },
  { sort: 'activity', project: '/work/p13', q: 'needle' },
  { sort: 'activity', q: '/work/p4/sub' },
  // `%` taken literally: as a wildcard it would match tag-100, tag-1000…
  { sort: 'activity', q: '100%' },
];

function expected(seeded: Seeded[], query: SessionListQuery): string[] {
  return seeded
    .filter((s) => s.namespace === 'default')
    .filter((s) => query.state === undefined || s.state === query.state)
    .filter((s) => query.flavor === undefined || s.flavor === query.flavor)
    .filter((s) => query.project === undefined || s.project === query.project)
    .filter((s) => query.q === undefined || s.text.includes(query.q.toLowerCase()))
    .sort(byActivity)
    .map((s) => s.sid);
}

/** SQLite: each list query searches an index of sessions, in the sort's order (no temp B-tree). */
const SQLITE_INDEX: Record<keyof typeof SESSION_LIST_QUERIES, RegExp> = {
  byActivity: /^SEARCH sessions USING INDEX sessions_by_activity \(namespace=\?\)/,
  byActivityAfterCursor: /^SEARCH sessions USING INDEX sessions_by_activity \(namespace=\? AND last_activity_at<\?\)/,
  byUpdate: /^SEARCH sessions USING INDEX sessions_by_update \(namespace=\?\)/,
  byUpdateAfterCursor: /^SEARCH sessions USING INDEX sessions_by_update \(namespace=\? AND updated_at<\?\)/,
  state: /^SEARCH sessions USING INDEX sessions_by_activity \(namespace=\?\)/,
  flavor: /^SEARCH sessions USING INDEX sessions_by_activity \(namespace=\?\)/,
  stateAndFlavor: /^SEARCH sessions USING INDEX sessions_by_activity \(namespace=\?\)/,
  project: /^SEARCH sessions USING INDEX sessions_by_project \(namespace=\? AND project=\?\)/,
  projectAfterCursor: /^SEARCH sessions USING INDEX sessions_by_project \(namespace=\? AND project=\? AND last_activity_at<\?\)/,
  search: /^SEARCH sessions USING INDEX sessions_by_activity \(namespace=\?\)/,
  searchAfterCursor: /^SEARCH sessions USING INDEX sessions_by_activity \(namespace=\? AND last_activity_at<\?\)/,
  projectAndSearch: /^SEARCH sessions USING INDEX sessions_by_project \(namespace=\? AND project=\?\)/,
};

describe('session list query plans (SQLite, 10,000 sessions with statistics)', () => {
  let store: SqliteStore;
  beforeAll(async () => {
    store = SqliteStore.open(':memory:');
    await seed(store);
    await store.run('ANALYZE');
  }, 120_000);
  afterAll(() => store.close());

  for (const name of Object.keys(SESSION_LIST_QUERIES)) {
    it(`${name}: walks an index in order, never scanning or sorting sessions`, async () => {
      const plan = await explainQueryPlan(store, SESSION_LIST_QUERIES[name]!);
      expect(plan[0], plan.join(' | ')).toMatch(SQLITE_INDEX[name as keyof typeof SESSION_LIST_QUERIES]!);
      expect(plan.join(' | ')).not.toMatch(/TEMP B-TREE|SCAN sessions|SCAN turns/);
      // a prompt is looked for in the session's own turns only
      if (name.toLowerCase().includes('search')) expect(plan.join(' | ')).toMatch(/SEARCH turns USING INDEX turns_by_session \(sid=\?\)/);
    });
  }

  it('the usage report and session totals search their indexes', async () => {
    const plans = await queryPlans(store, USAGE_QUERIES);
    expect(plans.sessionTotals![0]).toMatch(/^SEARCH turn_usage USING INDEX turn_usage_by_session \(sid=\?\)/);
    for (const name of ['byDay', 'byFlavor', 'byProject', 'byModel']) {
      expect(plans[name]!.join(' | '), name).toMatch(/SEARCH turn_usage USING INDEX turn_usage_by_time \(namespace=\? AND at>\? AND at<\?\)/);
      expect(plans[name]!.join(' | '), name).not.toMatch(/SCAN (turn_usage|sessions)/);
    }
  });
});

for (const engine of STORE_ENGINES) {
  describe(`session list at 10,000 sessions (${engine.name})`, () => {
    let target: EngineTarget;
    let store: Store;
    let seeded: Seeded[];
    beforeAll(async () => {
      target = await engine.target();
      store = await target.open();
      seeded = await seed(store);
      await store.run('ANALYZE');
    }, 300_000);
    afterAll(async () => {
      await store.close();
      await target.cleanup();
    });

    for (const query of FILTERS) {
      it(`pages through ${JSON.stringify(query)} exactly: every match once, newest activity first`, async () => {
        const want = expected(seeded, query);
        if (query.q !== '100%') expect(want.length).toBeGreaterThan(0);
        for (const limit of [1000, 97]) expect((await walk(store, query, limit)).map((s) => s.sid)).toEqual(want);
      }, 120_000);
    }

    if (engine.name === 'postgres') {
      it('PostgreSQL plans: the list walks sessions_by_activity or sessions_by_project, with no sort of the table', async () => {
        for (const query of [{ sort: 'activity' }, { sort: 'activity', project: '/work/p7' }, { sort: 'activity', state: 'idle', flavor: 'codex' }, { sort: 'activity', q: 'needle' }] as SessionListQuery[]) {
          const params = listSessionsParams({ ...query, namespace: 'default', limit: 50 });
          const plan = (await store.all<{ 'QUERY PLAN': string }>({ sqlite: '', postgres: `EXPLAIN ${(listSessionsQuery(query) as { postgres: string }).postgres}` }, params)).map((row) => row['QUERY PLAN']).join('\n');
          expect(plan, plan).toMatch(query.project ? /Index Scan using sessions_by_project on sessions/ : /Index Scan using sessions_by_activity on sessions/);
          expect(plan, plan).not.toMatch(/Seq Scan on sessions|Sort Key/);
        }
      });
    }
  });
}
