import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { startDelayProxy, throughProxy, type DelayProxy } from '../../bench/delay-proxy.js';
import { createCluster, runnerOn, twoHubsAfterEach } from './two-hubs.js';

twoHubsAfterEach();
let proxy: DelayProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

const RUNNERS = 10;
const WRITES_EACH = 12;
/** Each way: a round trip (80 ms) well above a loaded machine's scheduling noise. */
const DELAY_MS = 40;

/**
 * The metadata writes' events by the transaction that committed them: rows one transaction
 * inserted share its id (`xmin`), so these are the group-committed batches, read from the database.
 */
async function batchSizes(databaseUrl: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(`
      SELECT count(*)::int AS n FROM events
      WHERE CAST(body AS jsonb)->>'t' = 'update-session' AND metadata_version > 1
      GROUP BY xmin::text`);
    return rows.map((row) => row.n);
  } finally {
    await client.end();
  }
}

describe('group commit across a network (batch-pacing.ts)', () => {
  it('a fleet writing one at a time through a slow link waits about one batch a write, not two (batches together, or overlapping)', async () => {
    const { database, tokens, start } = await createCluster({ SESSION_HUB_SWEEP_MS: '600000' });
    const target = new URL(database.url);
    proxy = await startDelayProxy({ host: target.hostname, port: Number(target.port || 5432) });
    // migrated at full speed; the link is slowed once the hub listens
    const hub = await start({ SESSION_HUB_DATABASE_URL: throughProxy(database.url, proxy) });
    const runners = await Promise.all(Array.from({ length: RUNNERS }, () => runnerOn(hub, tokens.runner)));
    const sids = await Promise.all(
      runners.map(async (runner, i) => (await runner.startSession({ tag: `pacing-${i}`, flavor: 'claude', source: 'startup', metadata: { path: `/p${i}` } })).session.sid),
    );
    proxy.delayMs = DELAY_MS;
    const roundTrip = 2 * DELAY_MS;

    // each runner as a fleet's: its next write once the last one is acknowledged
    const started = performance.now();
    await Promise.all(
      runners.map(async (runner, i) => {
        for (let step = 1; step <= WRITES_EACH; step++) await runner.updateMetadata(sids[i]!, { patch: { step } });
      }),
    );
    const roundTripsEach = (performance.now() - started) / roundTrip / WRITES_EACH;

    const sizes = await batchSizes(database.url);
    expect(sizes.reduce((sum, n) => sum + n, 0)).toBe(RUNNERS * WRITES_EACH);
    // A batch is two round trips (reads, then writes and COMMIT). The fleet together, or split in two
    // whose batches overlap (the next one's reads travel with the last one's COMMIT), waits about one
    // batch a write: 2 to 3 round trips. Split in two batches that wait for each other, it waits
    // two: 4. Counted in round trips of the link, over 12 writes each (margin for a loaded machine).
    expect(roundTripsEach, `batch sizes ${sizes.join(' ')}`).toBeLessThan(3.5);
  });
});
