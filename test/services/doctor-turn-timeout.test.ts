/**
 * doctor and the sweep agree on when a turn has timed out: open for more than the turn timeout
 * (spec 9), so a turn exactly that old is not listed (the sweep leaves it open too).
 */
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../hub/services/doctor.js';
import { insertSession } from '../../hub/store/sessions.js';
import { insertTurn } from '../../hub/store/turns.js';
import { STORE_ENGINES, storeForEachTest } from '../helpers/store-engines.js';

const TIMEOUT = 300_000;
const NOW = 10_000_000;

describe.each(STORE_ENGINES)('$name: doctor\'s open turns', (engine) => {
  const store = storeForEachTest(engine);

  it('lists a turn open for more than the timeout, not one open for exactly the timeout', async () => {
    await store().transaction(async (tx) => {
      for (const [sid, openedAt] of [['exactly', NOW - TIMEOUT], ['past', NOW - TIMEOUT - 1]] as const) {
        await insertSession(tx, { sid, namespace: 'default', tag: sid, flavor: 'claude', parentSid: null, metadata: {}, now: 1 });
        await insertTurn(tx, { turnId: `t-${sid}`, sid, kind: 'prompt', prompt: 'p', promptTruncated: false, promptId: null, status: 'open', openedAt, closedAt: null });
      }
    });
    const report = await diagnose(store(), { now: NOW, runGraceMs: 120_000, turnTimeoutMs: TIMEOUT });
    expect(report.openTurns.map((finding) => finding.sid)).toEqual(['past']);
  });
});
