/**
 * Issue 26, point 5 (first half): a replay (session-join, subscribe) read the namespace's
 * `pruned_through` and the events after the client's seq in two statements. A prune committing
 * between them deleted events the first read had promised: the client was sent the events after
 * the pruned ones, never the pruned ones, and no `resync`. Here the prune commits right after the
 * replay's first statement, on both engines; the replay must be either complete or a gap.
 */
import { describe, expect, it } from 'vitest';
import type { UpdateBody } from '../../shared/protocol/broadcast.js';
import { planReplay } from '../../hub/socket/replay.js';
import { appendEvent, pruneEvents } from '../../hub/store/events.js';
import type { Sql, Store } from '../../hub/store/sql.js';
import { STORE_ENGINES, storeForEachTest } from '../helpers/store-engines.js';

const body = (n: number) => ({ t: 'update-session', sid: 's1', metadata: null, agentState: null, lifecycle: null, presence: null, n }) as unknown as UpdateBody;

/** The store, except that after its first statement a prune commits (another sweep, another hub process). */
function pruneAfterFirstStatement(store: Store, prune: () => Promise<unknown>): Sql {
  let statements = 0;
  const after = async <T>(result: Promise<T>): Promise<T> => {
    const value = await result;
    if (++statements === 1) await prune();
    return value;
  };
  return {
    dialect: store.dialect,
    get: (query, params) => after(store.get(query, params)),
    all: (query, params) => after(store.all(query, params)),
    run: (query, params) => after(store.run(query, params)),
    write: (query, params) => after(store.write(query, params)),
  };
}

describe.each(STORE_ENGINES)('$name replay against a concurrent prune', (engine) => {
  const store = storeForEachTest(engine);

  it('never skips events: a replay is every event after the client\'s seq, or a gap (resync)', async () => {
    await store().run(`INSERT INTO namespaces (name, last_seq) VALUES ('default', 0)`);
    await store().transaction(async (tx) => {
      for (let n = 1; n <= 10; n++) await appendEvent(tx, { namespace: 'default', sid: 's1', body: body(n), now: 1000 + n });
    });
    // keeps the newest 2 events: seq 1-8 go
    const prune = () => store().transaction((tx) => pruneEvents(tx, { keepCount: 2, keepMs: 0, now: 1_000_000 }));

    const plan = await planReplay(pruneAfterFirstStatement(store(), prune), { namespace: 'default', sinceSeq: 3 });
    expect(await store().get(`SELECT pruned_through AS p FROM namespaces`)).toEqual({ p: 8 });
    if (plan.kind === 'events') {
      expect(plan.events.map((event) => event.seq)).toEqual([4, 5, 6, 7, 8, 9, 10]);
      expect(plan.through).toBe(10);
    } else {
      expect(plan.kind).toBe('gap');
    }
    // and a replay from the same seq after the prune is a gap
    expect((await planReplay(store(), { namespace: 'default', sinceSeq: 3 })).kind).toBe('gap');
  });
});
