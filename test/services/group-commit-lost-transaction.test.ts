/**
 * Group commit when SQLite rolls back the whole transaction by itself (SQLITE_FULL and the I/O
 * errors do, not just the failing statement): the batch's other writes must not be stored and then
 * answered with an error. Before the fix, the writes after the failing one ran outside any
 * transaction — `SAVEPOINT` outside a transaction starts one and its `RELEASE` commits it — so they
 * were committed one by one, then the batch's COMMIT failed and every write was rejected: a rejected
 * write had changed rows (spec section 2), and a client retrying without requestId applied it twice.
 * The disk is "full" through `max_page_count` on the real database file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSession } from '../../hub/lifecycle/session-start.js';
import { updateMetadata } from '../../hub/lifecycle/versioned-writes.js';
import { getSession } from '../../hub/store/sessions.js';
import { openServices, runnerActor, type ServiceHarness } from '../helpers/services.js';

let harness: ServiceHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const actor = runnerActor();

describe('a batch whose transaction SQLite rolled back by itself', () => {
  it('stores none of its writes and answers none of them success', async () => {
    const h = (harness = openServices());
    const sids: string[] = [];
    for (const tag of ['a', 'b', 'c']) {
      sids.push((await startSession(h.deps, actor, { tag, flavor: 'claude', source: 'startup', metadata: { path: `/${tag}` } })).session.sid);
    }
    const [a, b, c] = sids as [string, string, string];
    // room for small writes, not for a 60 KiB document (and its history row)
    const pages = h.store.db.pragma('page_count', { simple: true }) as number;
    h.store.db.pragma(`max_page_count = ${pages + 8}`);

    const writes = [
      updateMetadata(h.deps, actor, { sid: a, expectedVersion: 1, patch: { title: 'first' } }),
      updateMetadata(h.deps, actor, { sid: b, expectedVersion: 1, patch: { blob: 'x'.repeat(60_000) } }),
      updateMetadata(h.deps, actor, { sid: c, expectedVersion: 1, patch: { title: 'third' } }),
    ];
    const outcomes = await Promise.allSettled(writes);
    expect(outcomes[1]!.status).toBe('rejected');

    h.store.db.pragma(`max_page_count = ${2 ** 30}`);
    const stored = await h.deps.store.transaction(async (tx) =>
      Promise.all(sids.map(async (sid) => (await getSession(tx, { namespace: 'default', sid }))!.metadataVersion)),
    );
    // every write answered success is stored, and every write answered an error changed nothing
    outcomes.forEach((outcome, i) => {
      if (outcome.status === 'fulfilled') expect({ i, ack: outcome.value.result, version: stored[i] }).toEqual({ i, ack: 'success', version: 2 });
      else expect({ i, version: stored[i] }).toEqual({ i, version: 1 });
    });
    const committedEvents = h.store.db.prepare(`SELECT COUNT(*) AS n FROM events WHERE body LIKE '%update-session%'`).get() as { n: number };
    expect(committedEvents.n).toBe(outcomes.filter((outcome) => outcome.status === 'fulfilled').length);

    // and the hub goes on: the next writes are stored and answered as usual
    expect(await updateMetadata(h.deps, actor, { sid: c, expectedVersion: stored[2]!, patch: { title: 'again' } })).toMatchObject({
      result: 'success',
      version: stored[2]! + 1,
    });
  });
});
