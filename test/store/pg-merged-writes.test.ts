/**
 * A PostgreSQL batch's per-event writes (a session's activity, presence and attention, a turn's
 * activity and tool count, hook sessions and applied hook event ids) go in one statement per kind,
 * past the other writes of their events (sql.ts, RowsWrite `touches`), and a session's patches
 * (activity, presence, attention, current turn) in one write of its row. What they store must be
 * what the same writes run one statement at a time store: repeated keys, a turn closed between two
 * touches, tools of one turn numbered in order, a prompt's turn and a lifecycle change (writes that
 * read or write the session's row otherwise) between a session's patches.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PgStore } from '../../hub/store/postgres/pg-store.js';
import { recordAppliedHookEvent, saveHookSession } from '../../hub/store/hook-events.js';
import { getSession, insertSession, openPromptTurn, touchActivity, updateAttention, updateCurrentTurn, updateLifecycle, updatePresence } from '../../hub/store/sessions.js';
import type { Tx } from '../../hub/store/sql.js';
import { closeTurn, completeActivity, getTurn, insertActivity, insertTurn, touchTurn } from '../../hub/store/turns.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { startStatementCounter } from '../helpers/pg-statement-counter.js';
import type { PgRelay } from '../helpers/pg-relay.js';

const SIDS = ['sa', 'sb', 'sc'];
const ROUNDS = 4;

const opened: { database: TestDatabase; store: PgStore; relay: PgRelay }[] = [];
afterEach(async () => {
  for (const { database, store, relay } of opened.splice(0)) {
    await store.close();
    await relay.close();
    await database.drop();
  }
});

async function openStore() {
  const database = await createTestDatabase();
  const relay = await startStatementCounter(database.url);
  const store = await PgStore.open(relay.url);
  opened.push({ database, store, relay });
  await store.transaction(async (tx) => {
    for (const sid of SIDS) {
      await insertSession(tx, { sid, namespace: 'default', tag: `tag-${sid}`, flavor: 'claude', parentSid: null, metadata: {}, now: 1 });
      await insertTurn(tx, { turnId: `turn-${sid}`, sid, kind: 'prompt', prompt: 'go', promptTruncated: false, promptId: null, status: 'open', openedAt: 1, closedAt: null });
    }
  });
  return { store, relay };
}

/** A hook-like traffic of several events per session, interleaved across sessions, keys repeated. */
async function traffic(tx: Tx): Promise<void> {
  // cached: its close is deferred like the rest (a turn not cached is closed by a statement of its own)
  await getTurn(tx, 'turn-sc');
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, sid] of SIDS.entries()) {
      const at = 1000 + round * 10 + i;
      await touchActivity(tx, { sid, now: at });
      // turn sa's times go backwards: its latest activity never does
      await touchTurn(tx, { turnId: `turn-${sid}`, at: sid === 'sa' ? 5000 - round : at });
      await updatePresence(tx, { sid, active: round % 2 === 0, activeAt: round, aliveAt: 100 + round, thinking: round === 2 });
      await insertActivity(tx, {
        activityId: `act-${sid}-${round}`, turnId: `turn-${sid}`, sid, toolUseId: `tool-${sid}-${round}`, tool: 'Bash',
        input: { round }, output: null, at, truncated: false, status: 'running', endedAt: null,
      });
      if (round > 0) await completeActivity(tx, { activityId: `act-${sid}-${round - 1}`, status: 'done', output: { ok: round }, endedAt: at, outputTruncated: false });
      await updateCurrentTurn(tx, { sid, turnId: round === 3 ? null : `turn-${sid}`, now: at });
      // writes of the row that are no patches: the patches after them must not move up past them
      if (round === 1 && sid === 'sa') await openPromptTurn(tx, (await getSession(tx, { namespace: 'default', sid }))!, { turnId: 'turn-sa-2', prompt: 'again', now: at });
      if (round === 2 && sid === 'sb') await updateLifecycle(tx, { sid, state: 'idle', since: at, reason: 'quiet', by: 'hub' });
      await updateAttention(tx, { sid, attention: round === 1 ? { kind: 'permission', since: at, message: `may I ${sid}`, tool: 'Bash' } : round === 3 && sid === 'sb' ? null : { kind: 'done', since: at, message: null, tool: null } });
      await saveHookSession(tx, { namespace: 'default', tag: `tag-${sid}`, turnsEnded: round, lastAt: at, lastSeq: round * 3 + i });
      await recordAppliedHookEvent(tx, { namespace: 'default', eventId: `event-${sid}-${round}`, outcome: 'applied', at });
    }
    // closed in round 2: round 3's touch of it changes nothing
    if (round === 2) expect(await closeTurn(tx, { turnId: 'turn-sc', status: 'completed', closedAt: 2000, response: 'done' })).toBe(true);
  }
}

async function rowsOf(store: PgStore) {
  return {
    sessions: await store.all(`SELECT sid, last_activity_at, active, active_at, alive_at, thinking, attention_kind, attention_since,
      attention_message, attention_tool, current_turn_id, updated_at, first_prompt, last_prompt, lifecycle_state FROM sessions ORDER BY sid`),
    turns: await store.all(`SELECT turn_id, status, closed_at, response, last_activity_at, activity_count FROM turns ORDER BY turn_id`),
    activities: await store.all(`SELECT activity_id, turn_id, ord, status, output, ended_at FROM activities ORDER BY activity_id`),
    hookSessions: await store.all(`SELECT tag, turns_ended, last_at, last_seq FROM hook_sessions ORDER BY tag`),
    hookEvents: await store.all(`SELECT event_id, outcome, applied_at FROM hook_events ORDER BY event_id`),
  };
}

describe('PostgreSQL: a batch\'s per-event writes merged into one statement per kind', () => {
  it('store what the same writes one statement at a time store, in far fewer statements', async () => {
    const merged = await openStore();
    const oneByOne = await openStore();
    const before = [merged.relay.statements(), oneByOne.relay.statements()];
    const sessionWritesBefore = [merged.relay.statementsMatching(/^\s*UPDATE sessions/), oneByOne.relay.statementsMatching(/^\s*UPDATE sessions/)];
    await merged.store.transaction(traffic);
    // 'always': every write its own statement, sent when written (the path that finds a failing write)
    await oneByOne.store.transaction(traffic, { savepoints: 'always' });
    const sent = { merged: merged.relay.statements() - before[0]!, oneByOne: oneByOne.relay.statements() - before[1]! };
    const sessionWrites = {
      merged: merged.relay.statementsMatching(/^\s*UPDATE sessions/) - sessionWritesBefore[0]!,
      oneByOne: oneByOne.relay.statementsMatching(/^\s*UPDATE sessions/) - sessionWritesBefore[1]!,
    };

    const expected = await rowsOf(oneByOne.store);
    expect(await rowsOf(merged.store)).toEqual(expected);
    // the writes did what they say (so the comparison is not of two empty tables)
    expect(expected.turns).toContainEqual(expect.objectContaining({ turn_id: 'turn-sa', last_activity_at: 5000, activity_count: ROUNDS }));
    expect(expected.turns).toContainEqual(expect.objectContaining({ turn_id: 'turn-sc', status: 'completed', last_activity_at: 1022 }));
    expect(expected.activities.filter((row) => (row as { turn_id: string }).turn_id === 'turn-sb').map((row) => (row as { ord: number }).ord)).toEqual([1, 2, 3, 4]);
    expect(expected.sessions).toContainEqual(expect.objectContaining({ sid: 'sb', attention_kind: null, last_activity_at: 1031, current_turn_id: null, lifecycle_state: 'idle' }));
    expect(expected.sessions).toContainEqual(expect.objectContaining({ sid: 'sa', first_prompt: 'again', current_turn_id: null, updated_at: 1030 }));
    expect(expected.hookSessions).toContainEqual(expect.objectContaining({ tag: 'tag-sc', turns_ended: 3, last_seq: 11 }));
    expect(expected.hookEvents).toHaveLength(SIDS.length * ROUNDS);
    // 12 events of ~8 writes each: one statement per write one by one, a few per kind merged
    expect(sent.oneByOne).toBeGreaterThan(100);
    expect(sent.merged).toBeLessThan(sent.oneByOne / 2);
    // a session's patches folded into one write of its row wherever nothing else wrote it in between:
    // three folds (before sa's prompt turn, up to sb's lifecycle change, after it), each a statement per
    // set of columns its rows set (at most three here), and the two writes that are no patches; one by
    // one, four a session and round (merged by kind only, the current turns alone were 12)
    expect(sessionWrites.oneByOne).toBe(SIDS.length * ROUNDS * 4 + 2);
    expect(sessionWrites.merged).toBeLessThanOrEqual(3 * 3 + 2);
  });

  it('tools started, several of one turn, and turns closed in one batch: numbered and ended as one at a time would', async () => {
    const merged = await openStore();
    const oneByOne = await openStore();
    const batch = async (tx: Tx) => {
      for (let k = 0; k < 3; k++) {
        for (const sid of ['sa', 'sb']) {
          await insertActivity(tx, {
            activityId: `x-${sid}-${k}`, turnId: `turn-${sid}`, sid, toolUseId: `x-${sid}-${k}`, tool: 'Read',
            input: { k }, output: null, at: 3000 + k, truncated: false, status: 'running', endedAt: null,
          });
        }
      }
      // sb's turn closes (its three tools abandoned); sa's first tool ends, twice (the second changes nothing)
      await getTurn(tx, 'turn-sb');
      expect(await closeTurn(tx, { turnId: 'turn-sb', status: 'aborted', closedAt: 3100, response: null })).toBe(true);
      for (const status of ['done', 'failed'] as const) {
        await completeActivity(tx, { activityId: 'x-sa-0', status, output: { status }, endedAt: 3200, outputTruncated: false });
      }
    };
    const statementsBefore = [merged.relay.statements(), oneByOne.relay.statements()];
    await merged.store.transaction(batch);
    await oneByOne.store.transaction(batch, { savepoints: 'always' });
    const sent = { merged: merged.relay.statements() - statementsBefore[0]!, oneByOne: oneByOne.relay.statements() - statementsBefore[1]! };
    const expected = await rowsOf(oneByOne.store);
    expect(await rowsOf(merged.store)).toEqual(expected);
    const tools = (expected.activities as { activity_id: string; ord: number; status: string }[]).filter((row) => row.activity_id.startsWith('x-'));
    expect(tools.map((row) => [row.activity_id, row.ord, row.status])).toEqual([
      ['x-sa-0', 1, 'done'], ['x-sa-1', 2, 'running'], ['x-sa-2', 3, 'running'],
      ['x-sb-0', 1, 'abandoned'], ['x-sb-1', 2, 'abandoned'], ['x-sb-2', 3, 'abandoned'],
    ]);
    // the six starts one statement, their counts another; with the close, the abandon, the ends, the
    // turn's read, BEGIN, the locks and COMMIT, a dozen at most, where one at a time sends two a start alone
    expect(sent.oneByOne).toBeGreaterThan(20);
    expect(sent.merged).toBeLessThanOrEqual(12);
  });
});
