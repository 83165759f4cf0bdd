/**
 * `npm run bench`: acknowledged `update-metadata` writes per second through the real hub (a child
 * process running the CLI, rate limit lifted) next to a bare Socket.IO server that only acks and
 * broadcasts (the ceiling), for 1, 10 and 100 runners, shared sessions and pipelined lanes, plus
 * the p50/p99 delay of `update` delivery to a second runner joined to the session.
 * Loopback only, bounded in time (BENCH_SECONDS per scenario and target, default 3).
 */
import { availableParallelism } from 'node:os';
import { runScenario, type Scenario, type ScenarioResult } from './load.js';
import { fixed, percentile } from './stats.js';
import { BENCH_RATE_LIMIT, startBareTarget, startHubTarget, type Target } from './targets.js';

const SCENARIOS: Scenario[] = [
  { name: 'own session, 1 runner', runners: 1, sessionsPerRunner: 1, runnersPerSession: 1 },
  { name: 'own session, 10 runners', runners: 10, sessionsPerRunner: 1, runnersPerSession: 1 },
  { name: 'own session, 100 runners', runners: 100, sessionsPerRunner: 1, runnersPerSession: 1 },
  { name: '10 runners sharing 1 session', runners: 10, sessionsPerRunner: 1, runnersPerSession: 10 },
  { name: '10 runners x 4 sessions (pipelined)', runners: 10, sessionsPerRunner: 4, runnersPerSession: 1 },
];
/** The scenario the target ratio is judged on. */
const TARGET_SCENARIO = 'own session, 10 runners';
const TARGET_RATIO = 0.5;

const measureMs = Number(process.env.BENCH_SECONDS ?? 3) * 1000;
const warmupMs = 500;
const only = process.env.BENCH_ONLY; // substring of a scenario name, to run one while profiling

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

function describe(result: ScenarioResult): string {
  const errors = Object.entries(result.errors).map(([code, count]) => `${code}=${count}`).join(' ');
  return (
    `${fixed(result.writesPerSecond, 0).padStart(6)} writes/s  CPU µs/write server ${fixed(result.serverCpuUsPerWrite, 0)} (main thread ${fixed(result.serverMainThreadCpuUsPerWrite, 0)}) client ${fixed(result.clientCpuUsPerWrite, 0)}  ack p50 ${fixed(percentile(result.ackMs, 50))} ms` +
    `  delivery p50 ${fixed(percentile(result.deliveryMs, 50))} / p99 ${fixed(percentile(result.deliveryMs, 99))} ms` +
    (result.serverWalBytesMax > 0 ? `  WAL max ${fixed(result.serverWalBytesMax / 2 ** 20, 1)} MiB` : '') +
    (result.mismatches > 0 ? `  mismatches ${result.mismatches}` : '') +
    (errors ? `  errors ${errors}` : '')
  );
}

async function main(): Promise<void> {
  say(`write throughput: ${availableParallelism()} cores, node ${process.version}, ${measureMs / 1000} s per scenario and target after ${warmupMs} ms warm-up`);
  say(`hub rate limit lifted for the bench: SESSION_HUB_RATE_LIMIT=SESSION_HUB_RATE_BURST=${BENCH_RATE_LIMIT}`);
  const targets: Target[] = [];
  try {
    targets.push(await startHubTarget(), await startBareTarget());
    say(`started hub at ${targets[0]!.url} and bare Socket.IO server at ${targets[1]!.url}`);
    const rows: { scenario: Scenario; hub: ScenarioResult; bare: ScenarioResult }[] = [];
    for (const scenario of SCENARIOS.filter((s) => !only || s.name.includes(only))) {
      const results: Record<string, ScenarioResult> = {};
      for (const target of targets) {
        say(`[${target.name}] ${scenario.name} ...`);
        results[target.name] = await runScenario(target, scenario, { warmupMs, measureMs });
        say(`[${target.name}] ${scenario.name}: ${describe(results[target.name]!)}`);
      }
      rows.push({ scenario, hub: results.hub!, bare: results.bare! });
    }

    say('');
    say('| scenario | hub writes/s | bare writes/s | hub/bare | hub / bare server CPU µs per write | hub main thread µs per write | hub delivery p50 / p99 ms | bare delivery p50 / p99 ms |');
    say('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const { scenario, hub, bare } of rows) {
      say(
        `| ${scenario.name} | ${fixed(hub.writesPerSecond, 0)} | ${fixed(bare.writesPerSecond, 0)} | ${fixed(hub.writesPerSecond / bare.writesPerSecond, 2)} ` +
          `| ${fixed(hub.serverCpuUsPerWrite, 0)} / ${fixed(bare.serverCpuUsPerWrite, 0)} | ${fixed(hub.serverMainThreadCpuUsPerWrite, 0)} ` +
          `| ${fixed(percentile(hub.deliveryMs, 50))} / ${fixed(percentile(hub.deliveryMs, 99))} ` +
          `| ${fixed(percentile(bare.deliveryMs, 50))} / ${fixed(percentile(bare.deliveryMs, 99))} |`,
      );
    }
    const judged = rows.find((r) => r.scenario.name === TARGET_SCENARIO);
    if (judged) {
      const ratio = judged.hub.writesPerSecond / judged.bare.writesPerSecond;
      say('');
      say(`target: hub >= ${TARGET_RATIO} x ceiling at 10 runners: ${fixed(ratio, 2)} -> ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'}`);
    }
  } finally {
    await Promise.all(targets.map((t) => t.stop()));
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
