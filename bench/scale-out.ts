/**
 * `npm run bench:scale-out` (issue 8): acknowledged `update-metadata` writes per second through the
 * real hub on SQLite, on PostgreSQL with one process, and with two processes on one PostgreSQL
 * database (runners split half/half), next to the bare Socket.IO ceiling, all in one run with the
 * same scenarios. Both PostgreSQL targets run with Redis, so one process takes the cluster's code
 * path too. Prints writes/s, ratios, ack p50/p99, the hub processes' CPU per write (summed), the
 * PostgreSQL backends' CPU per write, and `update` delivery p50/p99 (for two processes: to a runner
 * on the other process than the writer).
 * BENCH_POSTGRES_URL: admin URL (a fresh database per target, dropped at the end); BENCH_REDIS_URL;
 * BENCH_SECONDS per scenario and target (default 3); BENCH_ONLY: substring of a scenario name.
 */
import { availableParallelism } from 'node:os';
import { runScenario, type Scenario, type ScenarioResult } from './load.js';
import { withoutPassword } from '../hub/log.js';
import { backendCpuSince, openBenchPostgres, openBenchRedis, postgresBackendCpu, type BenchPostgres, type BenchRedis } from './scale-out-servers.js';
import { fixed, percentile } from './stats.js';
import { BENCH_RATE_LIMIT, startBareTarget, startHubTarget, type Target } from './targets.js';

const SCENARIOS: Scenario[] = [
  { name: 'own session, 10 runners', runners: 10, sessionsPerRunner: 1, runnersPerSession: 1 },
  { name: 'own session, 20 runners', runners: 20, sessionsPerRunner: 1, runnersPerSession: 1 },
];

const measureMs = Number(process.env.BENCH_SECONDS ?? 3) * 1000;
const warmupMs = 500;
const only = process.env.BENCH_ONLY;
const postgresAdminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://hub:hub@127.0.0.1:5432/postgres';

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

interface TargetSpec {
  name: string;
  /** Starts the target's processes; `database` names the PostgreSQL database they use, if any. */
  start(): Promise<{ targets: Target[]; database?: string }>;
}

interface Measured {
  result: ScenarioResult;
  /** PostgreSQL backends' CPU µs per acknowledged write (warm-up included, scaled by the rate); NaN without PostgreSQL. */
  postgresCpuUsPerWrite: number;
}

function specs(postgres: BenchPostgres, redis: BenchRedis): TargetSpec[] {
  // the SQLite hub must not pick a database or Redis up from the caller's environment
  const sqliteEnv = { SESSION_HUB_DATABASE_URL: undefined, SESSION_HUB_REDIS_URL: undefined };
  const clusterEnv = async () => {
    const { name, url } = await postgres.createDatabase();
    return { database: name, env: { SESSION_HUB_DATABASE_URL: url, SESSION_HUB_REDIS_URL: redis.url } };
  };
  return [
    { name: 'bare', start: async () => ({ targets: [await startBareTarget()] }) },
    { name: 'sqlite', start: async () => ({ targets: [await startHubTarget(undefined, sqliteEnv)] }) },
    {
      name: 'pg x1',
      start: async () => {
        const { database, env } = await clusterEnv();
        return { database, targets: [await startHubTarget(undefined, env)] };
      },
    },
    {
      name: 'pg x2',
      start: async () => {
        const { database, env } = await clusterEnv();
        // one after the other: the first migrates the fresh database (the second would wait on the migration lock anyway)
        const first = await startHubTarget(undefined, env);
        return { database, targets: [first, await startHubTarget(undefined, env)] };
      },
    },
  ];
}

function describe(measured: Measured): string {
  const { result } = measured;
  const errors = Object.entries(result.errors).map(([code, count]) => `${code}=${count}`).join(' ');
  return (
    `${fixed(result.writesPerSecond, 0).padStart(6)} writes/s  ack p50 ${fixed(percentile(result.ackMs, 50))} / p99 ${fixed(percentile(result.ackMs, 99))} ms` +
    `  CPU µs/write hub ${fixed(result.serverCpuUsPerWrite, 0)} pg ${fixed(measured.postgresCpuUsPerWrite, 0)} client ${fixed(result.clientCpuUsPerWrite, 0)}` +
    `  delivery p50 ${fixed(percentile(result.deliveryMs, 50))} / p99 ${fixed(percentile(result.deliveryMs, 99))} ms` +
    (result.mismatches > 0 ? `  mismatches ${result.mismatches}` : '') +
    (errors ? `  errors ${errors}` : '')
  );
}

async function measure(targets: Target[], database: string | undefined, scenario: Scenario): Promise<Measured> {
  const before = database ? postgresBackendCpu(database) : undefined;
  const result = await runScenario(targets, scenario, { warmupMs, measureMs });
  let postgresCpuUsPerWrite = Number.NaN;
  if (database && before) {
    const seconds = backendCpuSince(before, postgresBackendCpu(database));
    // the snapshots span warm-up + window (+ the few session starts): divide by the writes of that span at the measured rate
    const writes = result.writesPerSecond * ((warmupMs + measureMs) / 1000);
    if (seconds > 0) postgresCpuUsPerWrite = (seconds * 1e6) / writes;
  }
  return { result, postgresCpuUsPerWrite };
}

function ratio(a: number | undefined, b: number | undefined): string {
  return a !== undefined && b !== undefined ? fixed(a / b, 2) : '-';
}

function printTable(scenario: Scenario, rows: Map<string, Measured>): void {
  const rate = (name: string) => rows.get(name)?.result.writesPerSecond;
  say('');
  say(`### ${scenario.name} (pg x2: runners split half/half over the two processes)`);
  say('');
  say('| target | writes/s | vs SQLite | vs bare | vs pg x1 | ack p50 / p99 ms | hub CPU µs/write | PG backends CPU µs/write | delivery p50 / p99 ms |');
  say('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const [name, { result, postgresCpuUsPerWrite }] of rows) {
    say(
      `| ${name} | ${fixed(result.writesPerSecond, 0)} | ${ratio(result.writesPerSecond, rate('sqlite'))} | ${ratio(result.writesPerSecond, rate('bare'))} ` +
        `| ${name.startsWith('pg') ? ratio(result.writesPerSecond, rate('pg x1')) : '-'} ` +
        `| ${fixed(percentile(result.ackMs, 50))} / ${fixed(percentile(result.ackMs, 99))} | ${fixed(result.serverCpuUsPerWrite, 0)} | ${fixed(postgresCpuUsPerWrite, 0)} ` +
        `| ${fixed(percentile(result.deliveryMs, 50))} / ${fixed(percentile(result.deliveryMs, 99))}${name === 'pg x2' ? ' (cross-process)' : ''} |`,
    );
  }
}

async function main(): Promise<void> {
  say(`scale-out bench: ${availableParallelism()} cores, node ${process.version}, ${measureMs / 1000} s per scenario and target after ${warmupMs} ms warm-up`);
  const postgres = await openBenchPostgres(postgresAdminUrl);
  const redis = await openBenchRedis(process.env.BENCH_REDIS_URL, say);
  say(`PostgreSQL: ${withoutPassword(postgresAdminUrl)} (${postgres.describe}), a fresh database per target; Redis: ${withoutPassword(redis.url)}`);
  say(`hub rate limit lifted for the bench: SESSION_HUB_RATE_LIMIT=SESSION_HUB_RATE_BURST=${BENCH_RATE_LIMIT}`);

  let running: Target[] = [];
  const cleanUp = async () => {
    await Promise.all(running.splice(0).map((t) => t.stop()));
    await postgres.dropAll();
    await redis.stop();
  };
  process.once('SIGINT', () => {
    say('interrupted: stopping the hubs, dropping the databases');
    void cleanUp().finally(() => process.exit(130));
  });

  const scenarios = SCENARIOS.filter((s) => !only || s.name.includes(only));
  const results = new Map<string, Map<string, Measured>>(scenarios.map((s) => [s.name, new Map()]));
  try {
    // one target at a time: the PostgreSQL targets share the Redis channels, so two of them must not run at once
    for (const spec of specs(postgres, redis)) {
      const { targets, database } = await spec.start();
      running = targets;
      say(`[${spec.name}] started ${targets.map((t) => t.url).join(' + ')}`);
      for (const scenario of scenarios) {
        say(`[${spec.name}] ${scenario.name} ...`);
        const measured = await measure(targets, database, scenario);
        results.get(scenario.name)!.set(spec.name, measured);
        say(`[${spec.name}] ${scenario.name}: ${describe(measured)}`);
      }
      await Promise.all(running.splice(0).map((t) => t.stop()));
    }
    for (const scenario of scenarios) printTable(scenario, results.get(scenario.name)!);
  } finally {
    await cleanUp();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench:scale-out failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
