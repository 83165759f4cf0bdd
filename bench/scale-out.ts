/**
 * `npm run bench:scale-out` (issues 8, 25): acknowledged `update-metadata` writes per second through
 * the real hub on SQLite (one process) and on PostgreSQL + Redis: one process, two processes on one
 * tenant, two processes on two tenants (each process's runners in a tenant of their own). Every
 * PostgreSQL connection of the hubs goes through a TCP proxy that adds a fixed delay each way (the
 * network between hub machines and the database): 100 runners at 0 and 0.5 ms, 10 runners at 5 ms,
 * and two tenants with 10 runners each on two processes at 5 ms, one write in flight per runner.
 * Prints writes/s, ack p50/p99, the hub processes' CPU per write (summed), the PostgreSQL backends'
 * CPU per write, and the ratios issue 25 sets targets for.
 * BENCH_POSTGRES_URL: admin URL (a fresh database per target, dropped at the end); BENCH_REDIS_URL;
 * BENCH_SECONDS per scenario and target (default 3); BENCH_ONLY: substring of a scenario name;
 * BENCH_TARGETS: substring of a target name.
 */
import { availableParallelism } from 'node:os';
import { runScenario, type Scenario, type ScenarioResult } from './load.js';
import { withoutPassword } from '../hub/log.js';
import { throughProxy } from './delay-proxy.js';
import { startDelayProxyProcess, type DelayProxyProcess } from './delay-proxy-process.js';
import { backendCpuSince, openBenchPostgres, openBenchRedis, postgresBackendCpu, type BenchPostgres, type BenchRedis } from './scale-out-servers.js';
import { fixed, percentile } from './stats.js';
import { BENCH_RATE_LIMIT, BENCH_TOKEN, startHubTarget, type Target } from './targets.js';

/** A scenario at one network delay (ms each way between the hubs and PostgreSQL); `targets`: only those. */
type Condition = Scenario & { delayMs: number; targets?: readonly string[] };

const CONDITIONS: Condition[] = [
  { name: '100 runners, 0 ms', runners: 100, sessionsPerRunner: 1, runnersPerSession: 1, delayMs: 0 },
  { name: '100 runners, 0.5 ms', runners: 100, sessionsPerRunner: 1, runnersPerSession: 1, delayMs: 0.5 },
  { name: '10 runners, 5 ms', runners: 10, sessionsPerRunner: 1, runnersPerSession: 1, delayMs: 5 },
  // a second tenant with a fleet of its own on a second process: the capacity tenants add when they
  // never wait for each other (with one lock for the cluster, as before issue 25, this stayed at 10 runners' rate)
  { name: '20 runners, 5 ms', runners: 20, sessionsPerRunner: 1, runnersPerSession: 1, delayMs: 5, targets: ['pg x2, two tenants'] },
];

const measureMs = Number(process.env.BENCH_SECONDS ?? 3) * 1000;
const warmupMs = 500;
const only = process.env.BENCH_ONLY;
const onlyTargets = process.env.BENCH_TARGETS;
const postgresAdminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://hub:hub@127.0.0.1:5432/postgres';
const SECOND_TENANT_TOKEN = 'bench-runner-token-0002';

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

function specs(postgres: BenchPostgres, redis: BenchRedis, proxy: DelayProxyProcess): TargetSpec[] {
  // the SQLite hub must not pick a database or Redis up from the caller's environment
  const sqliteEnv = { SESSION_HUB_DATABASE_URL: undefined, SESSION_HUB_REDIS_URL: undefined };
  const clusterEnv = async () => {
    const { name, url } = await postgres.createDatabase();
    return { database: name, env: { SESSION_HUB_DATABASE_URL: throughProxy(url, proxy), SESSION_HUB_REDIS_URL: redis.url } };
  };
  const twoProcesses = async (tokens: string) => {
    const { database, env } = await clusterEnv();
    // one after the other: the first migrates the fresh database (the second would wait on the migration lock anyway)
    const first = await startHubTarget(tokens, env);
    return { database, targets: [first, await startHubTarget(tokens, env)] };
  };
  return [
    { name: 'sqlite x1', start: async () => ({ targets: [await startHubTarget(undefined, sqliteEnv)] }) },
    {
      name: 'pg x1',
      start: async () => {
        const { database, env } = await clusterEnv();
        return { database, targets: [await startHubTarget(undefined, env)] };
      },
    },
    { name: 'pg x2, one tenant', start: () => twoProcesses(`runner:default:${BENCH_TOKEN}`) },
    {
      name: 'pg x2, two tenants',
      start: async () => {
        const { database, targets } = await twoProcesses(`runner:default:${BENCH_TOKEN},runner:tenant-b:${SECOND_TENANT_TOKEN}`);
        // runner i goes to process i mod 2: process A's runners write tenant default, process B's tenant-b
        return { database, targets: [targets[0]!, { ...targets[1]!, token: SECOND_TENANT_TOKEN }] };
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
  return a !== undefined && b !== undefined && b > 0 ? fixed(a / b, 2) : '-';
}

function printTable(condition: Condition, rows: Map<string, Measured>): void {
  const rate = (name: string) => rows.get(name)?.result.writesPerSecond;
  say('');
  say(`### ${condition.name} each way (x2: runners split half/half over the two processes)`);
  say('');
  say('| target | writes/s | vs SQLite | vs pg x1 | ack p50 / p99 ms | hub CPU µs/write | PG backends CPU µs/write |');
  say('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const [name, { result, postgresCpuUsPerWrite }] of rows) {
    say(
      `| ${name} | ${fixed(result.writesPerSecond, 0)} | ${ratio(result.writesPerSecond, rate('sqlite x1'))} ` +
        `| ${name.startsWith('pg') ? ratio(result.writesPerSecond, rate('pg x1')) : '-'} ` +
        `| ${fixed(percentile(result.ackMs, 50))} / ${fixed(percentile(result.ackMs, 99))} | ${fixed(result.serverCpuUsPerWrite, 0)} | ${fixed(postgresCpuUsPerWrite, 0)} |`,
    );
  }
}

/** The ratios issue 25 sets targets for, from this run. */
function printTargets(results: Map<string, Map<string, Measured>>): void {
  const rate = (condition: string, target: string) => results.get(condition)?.get(target)?.result.writesPerSecond;
  say('');
  say('| ratio | this run | target |');
  say('| --- | ---: | ---: |');
  say(`| latency: pg x1, 100 runners, 0.5 ms / 0 ms | ${ratio(rate('100 runners, 0.5 ms', 'pg x1'), rate('100 runners, 0 ms', 'pg x1'))} | ≥ 0.6 |`);
  say(`| cost: pg x1 / sqlite x1, 100 runners, 0 ms | ${ratio(rate('100 runners, 0 ms', 'pg x1'), rate('100 runners, 0 ms', 'sqlite x1'))} | ≥ 0.5 |`);
  say(`| parallel tenants: pg x2 two tenants / pg x1, 10 runners, 5 ms | ${ratio(rate('10 runners, 5 ms', 'pg x2, two tenants'), rate('10 runners, 5 ms', 'pg x1'))} | ≥ 1.7 |`);
  say(
    `| tenants adding capacity: pg x2 two tenants with 10 runners each / pg x1 with 10, 5 ms | ${ratio(rate('20 runners, 5 ms', 'pg x2, two tenants'), rate('10 runners, 5 ms', 'pg x1'))} | ≈ 2 (one lock: 1) |`,
  );
  say(`| one tenant: pg x2 one tenant / pg x1, 10 runners, 5 ms | ${ratio(rate('10 runners, 5 ms', 'pg x2, one tenant'), rate('10 runners, 5 ms', 'pg x1'))} | ≥ 1.0 |`);
  say('');
  say('parallel tenants: 10 runners with one write in flight each do at most 10 / ack latency, whatever serves them;');
  say('past one lock for the cluster this is ≈ 1 by design. "tenants adding capacity" is the same question with');
  say('each tenant bringing its own fleet (docs/scale-out.md, "Benchmark").');
}

async function main(): Promise<void> {
  say(`scale-out bench: ${availableParallelism()} cores, node ${process.version}, ${measureMs / 1000} s per scenario and target after ${warmupMs} ms warm-up`);
  const postgres = await openBenchPostgres(postgresAdminUrl);
  const redis = await openBenchRedis(process.env.BENCH_REDIS_URL, say);
  const server = new URL(postgresAdminUrl);
  const proxy = await startDelayProxyProcess({ host: server.hostname, port: Number(server.port || 5432) });
  say(`PostgreSQL: ${withoutPassword(postgresAdminUrl)} (${postgres.describe}), a fresh database per target, reached through a delay proxy (a process of its own); Redis: ${withoutPassword(redis.url)}`);
  say(`hub rate limit lifted for the bench: SESSION_HUB_RATE_LIMIT=SESSION_HUB_RATE_BURST=${BENCH_RATE_LIMIT}`);

  let running: Target[] = [];
  const cleanUp = async () => {
    await Promise.all(running.splice(0).map((t) => t.stop()));
    await proxy.close();
    await postgres.dropAll();
    await redis.stop();
  };
  process.once('SIGINT', () => {
    say('interrupted: stopping the hubs, dropping the databases');
    void cleanUp().finally(() => process.exit(130));
  });

  const conditions = CONDITIONS.filter((c) => !only || c.name.includes(only));
  const results = new Map<string, Map<string, Measured>>(conditions.map((c) => [c.name, new Map()]));
  try {
    // one target at a time: the PostgreSQL targets share the Redis channels, so two of them must not run at once
    for (const spec of specs(postgres, redis, proxy).filter((s) => !onlyTargets || s.name.includes(onlyTargets))) {
      await proxy.setDelay(0);
      const { targets, database } = await spec.start();
      running = targets;
      say(`[${spec.name}] started ${targets.map((t) => t.url).join(' + ')}`);
      for (const condition of conditions) {
        // SQLite has no network to cross: measured once per runner count, at 0 ms
        if (!database && condition.delayMs > 0) continue;
        if (condition.targets && !condition.targets.includes(spec.name)) continue;
        await proxy.setDelay(condition.delayMs);
        say(`[${spec.name}] ${condition.name} ...`);
        const measured = await measure(targets, database, condition);
        results.get(condition.name)!.set(spec.name, measured);
        say(`[${spec.name}] ${condition.name}: ${describe(measured)}`);
      }
      await Promise.all(running.splice(0).map((t) => t.stop()));
    }
    for (const condition of conditions) printTable(condition, results.get(condition.name)!);
    printTargets(results);
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
