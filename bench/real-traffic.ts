/**
 * `npm run bench:real-traffic [-- --seconds S]` (issue 31): the traffic a fleet sends, through the
 * real hub. Three loads of 20 lanes each, one call in flight per lane (bench/traffic-loads.ts):
 * agents' hook events, SDK runners' turn events, metadata patches without a title. Each on SQLite,
 * on PostgreSQL + Redis direct, and on PostgreSQL behind a delay proxy holding every packet 0.5 ms
 * and 5 ms each way; then two hub processes on two tenants at 5 ms, each with its own 20 agents.
 * Prints calls/s, ack p50/p99 and the ratio against SQLite of the same run, and PASS/MISS per target.
 * `--only REGEXP`: only the cells whose "store: load" name matches (e.g. `--only "\+5 ms.*agents"`:
 * agents' hook events at 5 ms, one process and two). `--lanes N`: N lanes per load instead of 20 (one
 * lane shows a call's own latency, without waiting on the others').
 * BENCH_POSTGRES_URL: admin URL (a fresh database per store, dropped at the end); BENCH_REDIS_URL.
 */
import { availableParallelism } from 'node:os';
import { withoutPassword } from '../hub/log.js';
import { benchArgs } from './args.js';
import { throughProxy } from './delay-proxy.js';
import { startDelayProxyProcess, type DelayProxyProcess } from './delay-proxy-process.js';
import { commandCpuSeconds, machineCpuSeconds } from './machine-cpu.js';
import { openBenchPostgres, openBenchRedis } from './scale-out-servers.js';
import { fixed, percentile } from './stats.js';
import { startHubTarget, type Target } from './targets.js';
import { agentHooks, LOADS, type Lane, type LaneTarget, type Load } from './traffic-loads.js';

const args = benchArgs(
  { seconds: { type: 'string', default: '10' }, only: { type: 'string' }, lanes: { type: 'string', default: '20' } },
  `npm run bench:real-traffic -- [--seconds S] [--only REGEXP] [--lanes N]
  --seconds S      measuring window per cell, after 1 s of warm-up (default 10)
  --only REGEXP    only the cells whose "store: load" name matches, e.g. "\\+5 ms.*agents"
  --lanes N        lanes per load, one call in flight each (default 20)
env: BENCH_POSTGRES_URL (an admin URL: a database per store, dropped at the end), BENCH_REDIS_URL
docs/scale-out.md#benchmark`,
);
const measureMs = Number(args.seconds) * 1000;
if (!(measureMs > 0)) throw new Error(`--seconds: give a positive number (got ${args.seconds})`);
const warmupMs = 1000;
const LANES = Number(args.lanes);
if (!Number.isInteger(LANES) || LANES < 1) throw new Error(`--lanes: give a whole number of lanes, 1 or more (got ${args.lanes})`);
const postgresAdminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://hub:hub@127.0.0.1:5432/postgres';
const TENANTS = [
  { tenant: 'default', runnerToken: 'bench-runner-token-0001', agentToken: 'bench-agent-token-0001' },
  { tenant: 'tenant-b', runnerToken: 'bench-runner-token-0002', agentToken: 'bench-agent-token-0002' },
];
const TOKENS = TENANTS.flatMap((t) => [`runner:${t.tenant}:${t.runnerToken}`, `agent:${t.tenant}:${t.agentToken}`]).join(',');

/** The figures of one load on one store. */
interface Cell {
  callsPerSecond: number;
  ackMs: number[];
  errors: Map<string, number>;
  /**
   * CPU milliseconds a call, over the measured window: the hub processes' together, this bench
   * process's (the clients), PostgreSQL's server processes (all of this machine's) and the delay
   * proxy's; and the share of the machine's cores busy. Where the cores go decides most figures.
   */
  hubCpuMs: number;
  clientCpuMs: number;
  postgresCpuMs: number;
  proxyCpuMs: number;
  machineBusy: number;
}

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** `lanes` lanes of `load`, lane i on targets[i mod n], each calling one at a time for the window. */
async function measure(load: Load, targets: readonly LaneTarget[], lanes: number, hubs: readonly Target[], proxy: DelayProxyProcess): Promise<Cell> {
  const opened: Lane[] = [];
  // in groups of 5: opening is a session start each, slow across 5 ms on a busy 2-core machine
  for (let i = 0; i < lanes; i += 5) opened.push(...(await Promise.all(Array.from({ length: Math.min(5, lanes - i) }, (_, j) => load.open(targets[(i + j) % targets.length]!, i + j)))));
  const cell: Cell = { callsPerSecond: 0, ackMs: [], errors: new Map(), hubCpuMs: Number.NaN, clientCpuMs: Number.NaN, postgresCpuMs: Number.NaN, proxyCpuMs: Number.NaN, machineBusy: Number.NaN };
  const measureFrom = performance.now() + warmupMs;
  const deadline = measureFrom + measureMs;
  // CPU over the measured window only: where the 2 cores go decides most of these figures
  const sample = () => ({
    hub: hubs.reduce((sum, hub) => sum + hub.cpuSeconds(), 0) * 1000,
    postgres: commandCpuSeconds('postgres') * 1000,
    proxy: proxy.cpuSeconds() * 1000,
    machine: machineCpuSeconds(),
  });
  let cpuAtStart: (ReturnType<typeof sample> & { client: NodeJS.CpuUsage }) | undefined;
  const startCpu = setTimeout(() => (cpuAtStart = { ...sample(), client: process.cpuUsage() }), warmupMs);
  let cpuAtEnd: (ReturnType<typeof sample> & { client: NodeJS.CpuUsage }) | undefined;
  const endCpu = setTimeout(() => (cpuAtEnd = { ...sample(), client: process.cpuUsage(cpuAtStart?.client) }), warmupMs + measureMs);
  await Promise.all(
    opened.map(async (lane) => {
      while (performance.now() < deadline) {
        const sentAt = performance.now();
        try {
          await lane.next();
        } catch (error) {
          const why = (error as Error).message.slice(0, 120);
          cell.errors.set(why, (cell.errors.get(why) ?? 0) + 1);
          continue;
        }
        const ackedAt = performance.now();
        // counted by when the ack came: a call slower than the window (seconds across 5 ms) still counts where it ends
        if (ackedAt >= measureFrom && ackedAt <= deadline) cell.ackMs.push(ackedAt - sentAt);
      }
    }),
  );
  clearTimeout(startCpu);
  clearTimeout(endCpu);
  cell.callsPerSecond = cell.ackMs.length / (measureMs / 1000);
  if (cpuAtStart && cpuAtEnd && cell.ackMs.length > 0) {
    const calls = cell.ackMs.length;
    cell.hubCpuMs = (cpuAtEnd.hub - cpuAtStart.hub) / calls;
    cell.clientCpuMs = (cpuAtEnd.client.user + cpuAtEnd.client.system) / 1000 / calls;
    cell.postgresCpuMs = (cpuAtEnd.postgres - cpuAtStart.postgres) / calls;
    cell.proxyCpuMs = (cpuAtEnd.proxy - cpuAtStart.proxy) / calls;
    cell.machineBusy = (cpuAtEnd.machine.busy - cpuAtStart.machine.busy) / (cpuAtEnd.machine.total - cpuAtStart.machine.total);
  }
  await Promise.all(opened.map((lane) => lane.close()));
  return cell;
}

function describe(cell: Cell): string {
  const errors = [...cell.errors].map(([why, count]) => `${count}× ${why}`).join('; ');
  const cpu = `CPU a call: hub ${fixed(cell.hubCpuMs, 2)} ms, PostgreSQL ${fixed(cell.postgresCpuMs, 2)} ms, proxy ${fixed(cell.proxyCpuMs, 2)} ms, bench clients ${fixed(cell.clientCpuMs, 2)} ms; cores busy ${fixed(cell.machineBusy * 100, 0)} %`;
  return `${fixed(cell.callsPerSecond, 0).padStart(6)} calls/s  p50 ${fixed(percentile(cell.ackMs, 50))} ms  p99 ${fixed(percentile(cell.ackMs, 99))} ms  ${cpu}${errors ? `  errors: ${errors}` : ''}`;
}

const STORES = ['SQLite', 'PostgreSQL direct', 'PostgreSQL +0.5 ms', 'PostgreSQL +5 ms'] as const;
type Store = (typeof STORES)[number];
const DELAY_MS: Record<Store, number> = { SQLite: 0, 'PostgreSQL direct': 0, 'PostgreSQL +0.5 ms': 0.5, 'PostgreSQL +5 ms': 5 };

function verdict(met: boolean): string {
  return met ? 'PASS' : 'MISS';
}

async function main(): Promise<void> {
  say(`real-traffic bench: ${availableParallelism()} cores, node ${process.version}, ${LANES} lanes per load, one call in flight each, ${measureMs / 1000} s per cell after ${warmupMs} ms warm-up`);
  const postgres = await openBenchPostgres(postgresAdminUrl);
  const redis = await openBenchRedis(process.env.BENCH_REDIS_URL, say);
  const server = new URL(postgresAdminUrl);
  const proxy = await startDelayProxyProcess({ host: server.hostname, port: Number(server.port || 5432) });
  say(`PostgreSQL: ${withoutPassword(postgresAdminUrl)} (${postgres.describe}), a fresh database per store, through a delay proxy process; Redis: ${withoutPassword(redis.url)}`);

  const running: Target[] = [];
  const start = async (count: number, env: NodeJS.ProcessEnv): Promise<Target[]> => {
    // one after the other: the first migrates a fresh database
    for (let i = 0; i < count; i++) running.push(await startHubTarget(TOKENS, env));
    return running.slice(-count);
  };
  const stopAll = () => Promise.all(running.splice(0).map((t) => t.stop()));
  const laneTarget = (target: Target, tenant = TENANTS[0]!): LaneTarget => ({ url: target.url, runnerToken: tenant.runnerToken, agentToken: tenant.agentToken });
  const postgresEnv = async () => {
    const { url } = await postgres.createDatabase();
    return { SESSION_HUB_DATABASE_URL: throughProxy(url, proxy), SESSION_HUB_REDIS_URL: redis.url };
  };

  const cells = new Map<string, Cell>();
  const key = (load: Load, store: Store) => `${store}: ${load.name}`;
  const only = args.only === undefined ? undefined : new RegExp(args.only);
  const wanted = (name: string) => !only || only.test(name);
  const TWO_TENANTS = `PostgreSQL +5 ms, 2 processes, 2 tenants: ${agentHooks.name}`;
  let twoTenants: Cell | undefined;
  try {
    for (const store of STORES) {
      if (!LOADS.some((load) => wanted(key(load, store)))) continue;
      await proxy.setDelay(DELAY_MS[store]);
      // a fresh hub and database per store: no store measures on another's leftovers
      const env = store === 'SQLite' ? { SESSION_HUB_DATABASE_URL: undefined, SESSION_HUB_REDIS_URL: undefined } : await postgresEnv();
      const [hub] = await start(1, env);
      for (const load of LOADS.filter((l) => wanted(key(l, store)))) {
        const cell = await measure(load, [laneTarget(hub!)], LANES, [hub!], proxy);
        cells.set(key(load, store), cell);
        say(`[${store}] ${load.name}: ${describe(cell)}`);
      }
      await stopAll();
    }
    // two processes, two tenants, each process's 20 agents writing their own tenant
    if (wanted(TWO_TENANTS)) {
      await proxy.setDelay(5);
      const [a, b] = await start(2, await postgresEnv());
      twoTenants = await measure(agentHooks, [laneTarget(a!, TENANTS[0]), laneTarget(b!, TENANTS[1])], 2 * LANES, [a!, b!], proxy);
      say(`[${TWO_TENANTS}, ${LANES} agents each] ${describe(twoTenants)}`);
      await stopAll();
    }
  } finally {
    await stopAll();
    await proxy.close();
    await postgres.dropAll();
    await redis.stop();
  }

  printTables(cells, key, twoTenants);
}

const rate = (cell: Cell | undefined) => cell?.callsPerSecond ?? Number.NaN;

/** The figures and the targets; a cell left out by `--only` shows as `-`. */
function printTables(cells: Map<string, Cell>, key: (load: Load, store: Store) => string, twoTenants: Cell | undefined): void {
  say('');
  say(`| load | ${STORES.join(' | ')} |`);
  say(`| --- |${STORES.map(() => ' ---: |').join('')}`);
  for (const load of LOADS) {
    const sqlite = rate(cells.get(key(load, 'SQLite')));
    const row = STORES.map((store) => {
      const cell = cells.get(key(load, store));
      if (!cell) return '-';
      const ratio = store === 'SQLite' || !Number.isFinite(sqlite) ? '' : `, ${fixed(cell.callsPerSecond / sqlite, 2)}×`;
      return `${fixed(cell.callsPerSecond, 0)} (p50 ${fixed(percentile(cell.ackMs, 50))} / p99 ${fixed(percentile(cell.ackMs, 99))} ms${ratio})`;
    });
    say(`| ${load.name}, calls/s (ack ms, vs SQLite) | ${row.join(' | ')} |`);
  }
  say('');
  say('| target | this run | wanted | |');
  say('| --- | ---: | --- | --- |');
  const target = (name: string, value: number, shown: string, wanted: string, met: boolean) =>
    say(`| ${name} | ${shown} | ${wanted} | ${Number.isFinite(value) ? verdict(met) : 'not run'} |`);
  for (const load of LOADS) {
    const ratio = rate(cells.get(key(load, 'PostgreSQL +0.5 ms'))) / rate(cells.get(key(load, 'SQLite')));
    target(`${load.name}: +0.5 ms calls/s ÷ SQLite's`, ratio, fixed(ratio, 2), '≥ 0.5', ratio >= 0.5);
  }
  for (const load of LOADS.slice(0, 2)) {
    const p50 = percentile(cells.get(key(load, 'PostgreSQL +5 ms'))?.ackMs ?? [], 50);
    target(`${load.name}: +5 ms ack p50`, p50, `${fixed(p50)} ms`, '≤ 40 ms', p50 <= 40);
  }
  // "about twice": within 15 % of 2
  const scale = rate(twoTenants) / rate(cells.get(key(agentHooks, 'PostgreSQL +5 ms')));
  target(`${agentHooks.name}: +5 ms, 2 processes × 2 tenants ÷ 1 process`, scale, fixed(scale, 2), '≈ 2 (≥ 1.7)', scale >= 1.7);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench:real-traffic failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
