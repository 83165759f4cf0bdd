/**
 * `npm run bench`: acknowledged `update-metadata` writes per second through the real hub (a child
 * process running the CLI, rate limit lifted) next to a bare Socket.IO server that only acks and
 * broadcasts (the ceiling), for 1, 10 and 100 runners, shared sessions and pipelined lanes, plus
 * the p50/p99 delay of acks and of `update` delivery to a second runner joined to the session, and
 * each server's CPU per acknowledged write (measured in the same run).
 * Loopback only, bounded in time (BENCH_SECONDS per scenario and target, default 3).
 */
import { availableParallelism } from 'node:os';
import { runScenario, type Scenario, type ScenarioResult } from './load.js';
import { fixed, percentile } from './stats.js';
import { BENCH_RATE_LIMIT, startBareTarget, startHubTarget, type Target } from './targets.js';
import { measureWritePath } from './write-path.js';

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
/** Issue 15's intermediate targets on this machine (quiet), judged on the same scenario. */
const STEP_TARGETS = { hubCpuUsPerWrite: 80, ratio: 0.4, ackP99VsBare: 1.8 };

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

/**
 * What the target leaves the hub to spend per write on this machine, next to what the hub spends and
 * what its write path alone (no sockets; measured now, in this process) spends. The bench's clients
 * and both servers share the machine's cores, so writes/s follow CPU per write: see
 * docs/benchmarks.md, "The CPU budget".
 */
async function sayCpuBudget(hub: ScenarioResult, bare: ScenarioResult): Promise<void> {
  const cores = availableParallelism();
  const targetRate = TARGET_RATIO * bare.writesPerSecond;
  const eventLoopBudget = 1e6 / targetRate;
  const totalBudget = (cores * 1e6) / targetRate;
  say('');
  say(`CPU budget for the target (${cores} cores, shared by the bench's clients and the server under test):`);
  say(
    `  bare: ${fixed(bare.writesPerSecond, 0)} writes/s at ${fixed(bare.serverCpuUsPerWrite, 0)} (server) + ${fixed(bare.clientCpuUsPerWrite, 0)} (clients) µs CPU per write: ` +
      `${fixed(((bare.serverCpuUsPerWrite + bare.clientCpuUsPerWrite) * bare.writesPerSecond) / 1e6, 2)} cores busy`,
  );
  say(
    `  ${TARGET_RATIO} x bare = ${fixed(targetRate, 0)} writes/s leaves the hub at most ${fixed(eventLoopBudget)} µs of its event loop per write, ` +
      `and ${fixed(totalBudget)} µs of CPU per write in all (its clients' included, every core busy all the time)`,
  );
  say(
    `  the hub now: ${fixed(hub.serverMainThreadCpuUsPerWrite, 0)} µs event loop; ${fixed(hub.serverCpuUsPerWrite, 0)} server + ${fixed(hub.clientCpuUsPerWrite, 0)} clients = ` +
      `${fixed(hub.serverCpuUsPerWrite + hub.clientCpuUsPerWrite, 0)} in all`,
  );
  say(`  measuring the hub's write path alone (services + SQLite, no sockets, 10 sessions, ${measureMs / 1000} s) ...`);
  const path = await measureWritePath({ seconds: measureMs / 1000, sessions: 10 });
  const eventLoopFloor = path.mainThreadUsPerWrite + bare.serverCpuUsPerWrite;
  // a lower bound for the clients: what they spend on the bare server's smaller acks
  const totalFloor = path.processUsPerWrite + bare.serverCpuUsPerWrite + bare.clientCpuUsPerWrite;
  say(
    `  floor on the event loop: the write path alone ${fixed(path.mainThreadUsPerWrite)} µs + the bare server's whole socket work ` +
      `${fixed(bare.serverCpuUsPerWrite)} = ${fixed(eventLoopFloor)} µs (budget ${fixed(eventLoopBudget)})`,
  );
  say(
    `  floor in all: the write path ${fixed(path.processUsPerWrite)} µs with its checkpointer + the bare server ${fixed(bare.serverCpuUsPerWrite)} ` +
      `+ the bare clients ${fixed(bare.clientCpuUsPerWrite)} = ${fixed(totalFloor)} µs (budget ${fixed(totalBudget)}): ${fixed(totalBudget - totalFloor)} µs left for all the rest`,
  );
  if (eventLoopFloor > eventLoopBudget) {
    say('  -> over the event-loop budget: with the write path on the hub\'s event loop, the target is out of reach on this machine');
  }
}

/** Issue 15's targets, from the same run: server CPU per write, the ratio, and ack p99 against the bare server's. */
function sayStepTargets(hub: ScenarioResult, bare: ScenarioResult): void {
  const ratio = hub.writesPerSecond / bare.writesPerSecond;
  const p99 = percentile(hub.ackMs, 99) / percentile(bare.ackMs, 99);
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  say(
    `server CPU per write: hub ${fixed(hub.serverCpuUsPerWrite, 1)} µs, bare ${fixed(bare.serverCpuUsPerWrite, 1)} µs (hub/bare ${fixed(hub.serverCpuUsPerWrite / bare.serverCpuUsPerWrite, 2)}); ` +
      `ack p50 hub ${fixed(percentile(hub.ackMs, 50))} / bare ${fixed(percentile(bare.ackMs, 50))} ms, p99 hub ${fixed(percentile(hub.ackMs, 99))} / bare ${fixed(percentile(bare.ackMs, 99))} ms`,
  );
  say(
    `issue 15 targets (quiet machine): hub CPU/write <= ${STEP_TARGETS.hubCpuUsPerWrite} µs: ${verdict(hub.serverCpuUsPerWrite <= STEP_TARGETS.hubCpuUsPerWrite)}; ` +
      `hub/bare >= ${STEP_TARGETS.ratio}: ${verdict(ratio >= STEP_TARGETS.ratio)}; ack p99 <= ${STEP_TARGETS.ackP99VsBare} x bare: ${fixed(p99, 2)} x, ${verdict(p99 <= STEP_TARGETS.ackP99VsBare)}`,
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
    say(
      '| scenario | hub writes/s | bare writes/s | hub/bare | hub / bare server CPU µs per write | hub main thread µs per write ' +
        '| hub ack p50 / p99 ms | bare ack p50 / p99 ms | hub delivery p50 / p99 ms | bare delivery p50 / p99 ms |',
    );
    say('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const { scenario, hub, bare } of rows) {
      say(
        `| ${scenario.name} | ${fixed(hub.writesPerSecond, 0)} | ${fixed(bare.writesPerSecond, 0)} | ${fixed(hub.writesPerSecond / bare.writesPerSecond, 2)} ` +
          `| ${fixed(hub.serverCpuUsPerWrite, 0)} / ${fixed(bare.serverCpuUsPerWrite, 0)} | ${fixed(hub.serverMainThreadCpuUsPerWrite, 0)} ` +
          `| ${fixed(percentile(hub.ackMs, 50))} / ${fixed(percentile(hub.ackMs, 99))} | ${fixed(percentile(bare.ackMs, 50))} / ${fixed(percentile(bare.ackMs, 99))} ` +
          `| ${fixed(percentile(hub.deliveryMs, 50))} / ${fixed(percentile(hub.deliveryMs, 99))} ` +
          `| ${fixed(percentile(bare.deliveryMs, 50))} / ${fixed(percentile(bare.deliveryMs, 99))} |`,
      );
    }
    const judged = rows.find((r) => r.scenario.name === TARGET_SCENARIO);
    if (judged) {
      const ratio = judged.hub.writesPerSecond / judged.bare.writesPerSecond;
      say('');
      say(`target: hub >= ${TARGET_RATIO} x ceiling at 10 runners: ${fixed(ratio, 2)} -> ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'}`);
      sayStepTargets(judged.hub, judged.bare);
      await sayCpuBudget(judged.hub, judged.bare);
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
