/**
 * `npm run bench:sweep`: how long one background sweep takes over 10k and 100k sessions (a tenth
 * with open turns), next to a plain indexed SELECT over the same table in the same run, plus the
 * query plans of every sweep query on the seeded database. Target: a sweep over 100k in < 50 ms.
 * The sweep yields to the event loop between batches: the longest the loop was held during the busy
 * sweep is measured with perf_hooks' event-loop delay monitor.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ManualClock } from '../hub/clock.js';
import { loadConfig } from '../hub/config.js';
import { sweep, type SweepReport } from '../hub/lifecycle/sweeps.js';
import { createLogger } from '../hub/log.js';
import type { HubDeps } from '../hub/services/deps.js';
import { SqliteStore } from '../hub/store/sqlite/sqlite-store.js';
import type { Tx } from '../hub/store/sql.js';
import { sweepQueryPlans } from '../hub/store/query-plans.js';
import { endRun, insertRun, setRunDisconnected } from '../hub/store/runs.js';
import { insertSession, listSessionsPage, updateCurrentTurn, updateLastRun, updatePresence } from '../hub/store/sessions.js';
import { insertTurn } from '../hub/store/turns.js';
import { percentile } from './stats.js';

const SIZES = [10_000, 100_000];
const REPEATS = 15;
const T0 = 1_700_000_000_000;
const out = (line = '') => process.stdout.write(`${line}\n`);

/**
 * Seeds `count` sessions through the store functions in one transaction: 30% running with a live
 * run and a fresh heartbeat (a third of those, so a tenth of all, mid-turn; a few with their runner
 * gone but within the grace), the rest ended and inactive.
 */
function seed(store: SqliteStore, count: number): Promise<void> {
  return store.transaction(async (db: Tx) => {
    for (let i = 0; i < count; i++) {
      const sid = `sess-${i.toString().padStart(7, '0')}`;
      const now = T0 - (count - i); // spread, all within the last few minutes
      await insertSession(db, { sid, namespace: 'default', tag: sid, flavor: 'claude', parentSid: null, metadata: { path: `/work/p${i % 100}`, claudeSessionId: `c-${i}` }, now });
      const runId = `run-${i}`;
      await insertRun(db, { runId, sid, now, pid: 1000 + i, hubId: 'bench' });
      const live = i % 10 < 3;
      if (!live) await endRun(db, { runId, status: 'success', endedAt: now, reason: 'completed' });
      await updateLastRun(db, { sid, runId, status: live ? 'running' : 'success', endedAt: live ? null : now, reason: live ? null : 'completed', now });
      await updatePresence(db, { sid, active: live, activeAt: now, aliveAt: now, thinking: false });
      if (live && i % 10 === 0) {
        const turnId = `turn-${i}`;
        await insertTurn(db, { turnId, sid, kind: 'prompt', prompt: 'do the thing', promptTruncated: false, promptId: null, status: 'open', openedAt: now, closedAt: null });
        await updateCurrentTurn(db, { sid, turnId, now });
      }
      if (live && i % 1000 === 1) await setRunDisconnected(db, { runId, at: now, hubId: null });
    }
  });
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

async function benchSize(count: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'session-hub-bench-'));
  try {
    const config = loadConfig({}, { dataDir: dir, logLevel: 'silent' });
    const store = SqliteStore.open(config.databaseFile);
    const clock = new ManualClock(T0 + 1000);
    const deps: HubDeps = { store, hubId: 'bench', clock, config, log: createLogger('silent'), publisher: { publish: () => {} } };

    const seedMs = await time(async () => seed(store, count));
    let report: SweepReport | undefined;
    await sweep(deps); // warm the statement cache
    const sweepMs: number[] = [];
    for (let i = 0; i < REPEATS; i++) sweepMs.push(await time(async () => (report = await sweep(deps))));
    const selectMs: number[] = [];
    for (let i = 0; i < REPEATS; i++) selectMs.push(await time(async () => listSessionsPage(store, { namespace: 'default', limit: 50, sort: 'updated' })));

    // the same database when every open turn is past its timeout: the sweep does real work
    clock.advance(config.turnTimeoutMs + 1);
    const openTurns = Math.ceil(count / 10);
    let busy: SweepReport | undefined;
    const loopDelay = monitorEventLoopDelay({ resolution: 1 });
    loopDelay.enable();
    const busyMs = await time(async () => (busy = await sweep(deps)));
    loopDelay.disable();

    out(`## ${count.toLocaleString('en')} sessions (${openTurns.toLocaleString('en')} with open turns)`);
    out(`seed (store functions, one transaction): ${seedMs.toFixed(0)} ms`);
    out(`routine sweep, nothing due: median ${percentile(sweepMs, 50).toFixed(2)} ms, max ${Math.max(...sweepMs).toFixed(2)} ms over ${REPEATS} (${JSON.stringify({ ...report, durationMs: undefined })})`);
    out(`plain indexed SELECT (first page of 50, newest update first): median ${percentile(selectMs, 50).toFixed(2)} ms`);
    // the clock moved past the alive timeout too, so the running sessions also go inactive
    const changed = busy!.turnsTimedOut + busy!.sessionsInactive;
    out(
      `sweep with every open turn timed out: ${busyMs.toFixed(0)} ms for ${busy!.turnsTimedOut} turns closed + ${busy!.sessionsInactive} sessions gone inactive ` +
        `(${((busyMs / Math.max(1, changed)) * 1000).toFixed(0)} µs per change, each a persisted, broadcast event)`,
    );
    out(`event loop during that sweep: longest delay ${(loopDelay.max / 1e6).toFixed(1)} ms, p99 ${(loopDelay.percentile(99) / 1e6).toFixed(1)} ms (the sweep yields between batches)`);
    out('query plans on the seeded database:');
    for (const [name, plan] of Object.entries(await sweepQueryPlans(store))) out(`  ${name}: ${plan.join(' | ')}`);
    out();
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const size of SIZES) await benchSize(size);
