/**
 * waitForDecision when the decision is made by ANOTHER hub process (scale-out: PostgreSQL shared by
 * several processes). Two stores on one database stand for two processes: nothing in memory is
 * shared, so the waiter can only learn of the decision from the store. On SQLite (one process
 * owns the file) the same test checks the same store.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import { loadConfig } from '../../hub/config.js';
import { createLogger } from '../../hub/log.js';
import { waitForDecision } from '../../hub/people/approval-wait.js';
import { decideApproval, openApproval } from '../../hub/people/approvals.js';
import type { Actor, HubDeps } from '../../hub/services/deps.js';
import { startSession } from '../../hub/lifecycle/session-start.js';
import type { Store } from '../../hub/store/sql.js';
import { STORE_ENGINES } from '../helpers/store-engines.js';

const actor: Actor = { namespace: 'default', role: 'runner', by: 'runner' };

function depsOn(store: Store, hubId: string): HubDeps {
  const config = loadConfig({}, { logLevel: 'silent' });
  return { store, hubId, clock: new ManualClock(1_700_000_000_000), config, log: createLogger('silent'), publisher: { publish: () => {} } };
}

describe.each(STORE_ENGINES)('$name', (engine) => {
  it('a decision made through another process\'s store reaches the waiter (read from the store, within its poll)', async () => {
    const target = await engine.target();
    const stores: Store[] = [];
    try {
      stores.push(await target.open());
      // PostgreSQL: a second connection pool, as a second hub process has; SQLite: one owner of the file
      stores.push(engine.name === 'postgres' ? await target.open() : stores[0]!);
      const [a, b] = [depsOn(stores[0]!, 'hub-a'), depsOn(stores[1]!, 'hub-b')];
      const { session } = await startSession(a, actor, { tag: 'two-processes', flavor: 'claude', source: 'startup' });
      for (const decision of ['allow', 'deny'] as const) {
        const approval = await openApproval(a, actor, { sid: session.sid, tool: 'Bash', input: { command: 'make deploy' } });
        const waiting = waitForDecision(a, approval.approvalId, 10_000, { pollMs: 50 });
        const decided = await decideApproval(b, { ...actor, role: 'operator', by: 'user' }, { sid: session.sid, approvalId: approval.approvalId, decision, decidedBy: 'op-1' });
        expect(await waiting).toEqual(decided);
        expect(decided.status).toBe(decision === 'allow' ? 'allowed' : 'denied');
      }
    } finally {
      for (const store of new Set(stores)) await store.close();
      await target.cleanup();
    }
  });
});
