import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import { startSession as startSessionService } from '../../hub/lifecycle/session-start.js';
import { submitPrompt } from '../../hub/lifecycle/turn-events.js';
import { connectRunner, startSession } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { runnerActor } from '../helpers/services.js';
import { testStoreEngine } from '../helpers/test-store.js';

/**
 * Enough sweep batches (200 turns each) that the sweep outlasts a write's loopback round trip by far.
 * A PostgreSQL batch is much slower than a SQLite one (a round trip per query), so fewer do, and
 * seeding thousands through the services there would take half a minute.
 */
const OPEN_TURNS = testStoreEngine === 'postgres' ? 600 : 3000;

let hub: TestHub;
let clock: ManualClock;
useTestHub((started) => (hub = started), () => ({ clock: (clock = new ManualClock(1_700_000_000_000)) }));

/** `count` sessions each with an open turn, through the real services (no sockets: fast; group-committed together). */
async function seedOpenTurns(count: number): Promise<void> {
  const actor = runnerActor('default', 'seed-socket');
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const { session } = await startSessionService(hub.deps, actor, { tag: `seed-${i}`, flavor: 'claude', source: 'startup', metadata: { path: `/w/${i}` } });
      await submitPrompt(hub.deps, actor, { sid: session.sid, prompt: `job ${i}` });
    }),
  );
}

describe('sweep: the hub stays responsive while a big sweep runs', () => {
  it('acks a runner write while a sweep of many batches of timed-out turns is still closing them', async () => {
    await seedOpenTurns(OPEN_TURNS);
    clock.advance(hub.deps.config.turnTimeoutMs + 1);
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner);

    let sweepDone = false;
    const sweeping = hub.sweepNow().then((report) => {
      sweepDone = true;
      return report;
    });
    const ack = await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 1, metadata: { title: 'during the sweep' } });
    const sweepDoneAtAck = sweepDone;

    expect(ack).toMatchObject({ result: 'success', version: 2 });
    expect(sweepDoneAtAck).toBe(false);
    const report = await sweeping;
    expect(report.turnsTimedOut).toBe(OPEN_TURNS);
    // the session written during the sweep had no open turn and a fresh heartbeat: untouched by it
    expect((await hub.sweepNow()).turnsTimedOut).toBe(0);
  });

  it('never runs two sweeps at once: a second sweepNow waits for the running one, then sweeps again', async () => {
    await seedOpenTurns(500);
    clock.advance(hub.deps.config.turnTimeoutMs + 1);

    const order: string[] = [];
    const first = hub.sweepNow().then((report) => (order.push('first'), report));
    const second = hub.sweepNow().then((report) => (order.push('second'), report));
    const [a, b] = await Promise.all([first, second]);

    expect(order).toEqual(['first', 'second']);
    expect(a.turnsTimedOut).toBe(500);
    // had the two overlapped, the second would have closed some of the turns too
    expect(b.turnsTimedOut).toBe(0);
  });
});
