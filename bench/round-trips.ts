/**
 * Counts the round trips a group-committed batch of `update-metadata` writes costs on PostgreSQL
 * (each `send` of PgStore that starts while none is in flight: sends issued together share one), for batches of 1, 10 and 100 writes. `node dist/bench/round-trips.js`
 * with BENCH_POSTGRES_URL (admin URL; a fresh database, dropped after).
 */
import { PgStore } from '../hub/store/postgres/pg-store.js';
import { loadConfig } from '../hub/config.js';
import { createLogger } from '../hub/log.js';
import { ManualClock } from '../hub/clock.js';
import { startSession } from '../hub/lifecycle/session-start.js';
import { updateMetadata } from '../hub/services/versioned-writes.js';
import type { HubDeps } from '../hub/services/deps.js';
import { openBenchPostgres } from './scale-out-servers.js';

async function main(): Promise<void> {
  const postgres = await openBenchPostgres(process.env.BENCH_POSTGRES_URL ?? 'postgres://hub:hub@127.0.0.1:5432/postgres');
  const { url } = await postgres.createDatabase();
  const store = await PgStore.open(url);
  try {
    let sends = 0;
    const proto = PgStore.prototype as unknown as { send: (...args: unknown[]) => Promise<unknown> };
    const send = proto.send;
    const verbose = process.env.BENCH_VERBOSE === '1';
    // a send issued while another is still in flight shares its round trip (pg's pipeline mode)
    let inFlight = 0;
    proto.send = function (this: unknown, ...args: unknown[]) {
      if (inFlight++ === 0) sends++;
      if (verbose) process.stdout.write(`  send: ${(args[1] as { text: string }[]).map((s) => s.text.trim().split(/\s+/).slice(0, 4).join(' ')).join(' | ')}\n`);
      return send.apply(this, args).finally(() => inFlight--);
    };
    const deps: HubDeps = {
      store,
      hubId: 'rt',
      clock: new ManualClock(1_700_000_000_000),
      config: loadConfig({}, { logLevel: 'silent' }),
      log: createLogger('silent'),
      publisher: { publish: () => undefined },
    };
    const actor = { namespace: 'default', role: 'runner' as const, by: 'runner' as const, socketId: 's' };
    for (const size of [1, 10, 100]) {
      const sids: string[] = [];
      for (let i = 0; i < size; i++) {
        sids.push((await startSession(deps, actor, { tag: `rt-${size}-${i}`, flavor: 'claude', source: 'startup', metadata: { path: '/p', title: 't' } })).session.sid);
      }
      sends = 0;
      await Promise.all(sids.map((sid, i) => updateMetadata(deps, actor, { sid, expectedVersion: 1, patch: { n: i, title: `w${i}` }, requestId: `r-${size}-${i}` })));
      process.stdout.write(`batch of ${size} update-metadata (with requestId): ${sends} round trips\n`);
    }
  } finally {
    await store.close();
    await postgres.dropAll();
  }
}

void main();
