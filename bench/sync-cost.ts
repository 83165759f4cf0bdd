/**
 * `npm run bench:sync`: what SESSION_HUB_SYNC=full (SQLite synchronous=FULL: an fsync of the WAL
 * at every commit) costs in acknowledged writes/s against the default (NORMAL), through the hub's
 * write path (services + SQLite, group commit; bench/write-path.ts) with 1 and 10 sessions in
 * flight. Runs alternate (normal, full, normal, full…) so a busy machine weighs on both alike; the
 * ratio is of the medians. The disk under the temp directory decides: run it where the data lives.
 */
import { fixed } from './stats.js';
import { measureWritePath } from './write-path.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  process.stdout.write(`sync cost: ${ROUNDS} alternating rounds of ${SECONDS} s per setting, temp dir on this machine's disk\n`);
  for (const sessions of [1, 10]) {
    const rates: Record<'normal' | 'full', number[]> = { normal: [], full: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const sync of ['normal', 'full'] as const) rates[sync].push((await measureWritePath({ seconds: SECONDS, sessions, sync })).writesPerSecond);
    }
    const normal = median(rates.normal);
    const full = median(rates.full);
    process.stdout.write(
      `${String(sessions).padStart(2)} sessions in flight: normal ${fixed(normal, 0)} writes/s, full ${fixed(full, 0)} writes/s, full / normal ${fixed(full / normal, 2)}` +
        `  (runs: normal ${rates.normal.map((r) => fixed(r, 0)).join(' ')}; full ${rates.full.map((r) => fixed(r, 0)).join(' ')})\n`,
    );
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
