/**
 * A runner's pid is any non-negative safe integer on the wire (shared/protocol/lifecycle.ts); both
 * engines store it as given (PostgreSQL's runs.pid was a 32-bit INTEGER until migration 005).
 */
import { describe, expect, it } from 'vitest';
import { getRun, insertRun } from '../../hub/store/runs.js';
import { insertSession } from '../../hub/store/sessions.js';
import { STORE_ENGINES, storeForEachTest } from '../helpers/store-engines.js';

describe.each(STORE_ENGINES)('$name: a run\'s pid', (engine) => {
  const store = storeForEachTest(engine);

  it('keeps a pid past 32 bits', async () => {
    const pid = 2 ** 31 + 7;
    await store().transaction(async (tx) => {
      await insertSession(tx, { sid: 's1', namespace: 'default', tag: 's1', flavor: 'claude', parentSid: null, metadata: {}, now: 1 });
      await insertRun(tx, { runId: 'r1', sid: 's1', now: 1, pid, detached: false, hubId: 'hub-a' });
    });
    expect((await store().transaction((tx) => getRun(tx, 'r1')))!.pid).toBe(pid);
  });
});
