/**
 * `npm run bench:pg-write-cost` (issue 25, the cost target): CPU per write of group-committed
 * batches of `update-metadata` writes (with a requestId) on PostgreSQL, without sockets around them:
 * the hub process's CPU (the unit of work, the store, the pg driver) and the PostgreSQL backends'
 * CPU (from /proc), each per write, and the statements sent per write. Batches of BENCH_BATCH writes
 * (default 50), BENCH_ROUNDS of them (default 200), after 20 rounds of warm-up. BENCH_POSTGRES_URL:
 * admin URL (a fresh database, dropped after). BENCH_ENGINE=sqlite: the same on a SQLite file, for
 * comparison (no backends, no statements counted).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PgStore } from '../hub/store/postgres/pg-store.js';
import { SqliteStore } from '../hub/store/sqlite/sqlite-store.js';
import type { Store } from '../hub/store/sql.js';
import { loadConfig } from '../hub/config.js';
import { createLogger } from '../hub/log.js';
import { ManualClock } from '../hub/clock.js';
import { startSession } from '../hub/lifecycle/session-start.js';
import { updateMetadata } from '../hub/lifecycle/versioned-writes.js';
import type { HubDeps } from '../hub/services/deps.js';
import { backendCpuSince, openBenchPostgres, postgresBackendCpu } from './scale-out-servers.js';
import { fixed } from './stats.js';

const batch = Number(process.env.BENCH_BATCH ?? 50);
const rounds = Number(process.env.BENCH_ROUNDS ?? 200);
const warmupRounds = 20;

async function main(): Promise<void> {
  const sqlite = process.env.BENCH_ENGINE === 'sqlite';
  const postgres = sqlite ? undefined : await openBenchPostgres(process.env.BENCH_POSTGRES_URL ?? 'postgres://hub:hub@127.0.0.1:5432/postgres');
  const { name, url } = postgres ? await postgres.createDatabase() : { name: '', url: '' };
  const directory = mkdtempSync(join(tmpdir(), 'pg-write-cost-'));
  const store: Store = postgres ? await PgStore.open(url) : await SqliteStore.open(join(directory, 'hub.db'));
  try {
    let statements = 0;
    const proto = PgStore.prototype as unknown as { send: (client: unknown, sent: unknown[]) => Promise<unknown> };
    const send = proto.send;
    proto.send = function (this: unknown, client: unknown, sent: unknown[]) {
      statements += sent.length;
      return send.call(this, client, sent);
    };
    const clock = new ManualClock(1_700_000_000_000);
    const deps: HubDeps = {
      store,
      hubId: 'cost',
      clock,
      config: loadConfig({}, { logLevel: 'silent' }),
      log: createLogger('silent'),
      publisher: { publish: () => undefined },
    };
    const actor = { namespace: 'default', role: 'runner' as const, by: 'runner' as const, socketId: 's' };
    const sids: string[] = [];
    for (let i = 0; i < batch; i++) {
      sids.push((await startSession(deps, actor, { tag: `cost-${i}`, flavor: 'claude', source: 'startup', metadata: { path: '/p', title: 't' } })).session.sid);
    }
    let version = 1;
    const round = async () => {
      clock.advance(1);
      await Promise.all(
        sids.map((sid, i) =>
          updateMetadata(deps, actor, { sid, expectedVersion: version, patch: { n: version, title: `w${i}-${version}` }, requestId: `r-${i}-${version}` }),
        ),
      );
      version++;
    };
    for (let r = 0; r < warmupRounds; r++) await round();
    statements = 0;
    const backendBefore = sqlite ? new Map<number, number>() : postgresBackendCpu(name);
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    for (let r = 0; r < rounds; r++) await round();
    const elapsedMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const backendSeconds = sqlite ? 0 : backendCpuSince(backendBefore, postgresBackendCpu(name));
    const writes = rounds * batch;
    process.stdout.write(
      `batches of ${batch}, ${rounds} rounds: ${fixed(writes / (elapsedMs / 1000), 0)} writes/s, ` +
        `hub CPU ${fixed((cpu.user + cpu.system) / writes, 1)} µs/write, PostgreSQL backends ${fixed((backendSeconds * 1e6) / writes, 1)} µs/write, ` +
        `${fixed(statements / writes, 2)} statements/write\n`,
    );
  } finally {
    await store.close();
    await postgres?.dropAll();
    rmSync(directory, { recursive: true, force: true });
  }
}

void main();
