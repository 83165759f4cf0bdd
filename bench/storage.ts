/**
 * `npm run build && node dist/bench/storage.js [seconds]`: the write path without sockets — the hub's
 * services and SQLite store in this process, 10 sessions each with one `update-metadata` patch in
 * flight (group-committed as on the hub), bench-sized documents. Prints acknowledged writes and the
 * main thread's CPU per write (/proc/thread-self/stat: the checkpointer's thread is not counted).
 * Steadier than `npm run bench` on a shared machine: what a storage change buys shows here first.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../hub/clock.js';
import { loadConfig } from '../hub/config.js';
import { startSession } from '../hub/lifecycle/session-start.js';
import { createLogger } from '../hub/log.js';
import type { Actor, HubDeps } from '../hub/services/deps.js';
import { updateMetadata } from '../hub/services/versioned-writes.js';
import { SqliteStore } from '../hub/store/sqlite/sqlite-store.js';

const SESSIONS = 10;
const seconds = Number(process.argv[2] ?? 3);
const START_METADATA = {
  summary: { text: 'A benchmark session writing metadata patches as fast as the hub acknowledges them.', updatedAt: 0 },
  path: '/home/user/project',
  host: 'bench',
  os: 'linux',
};

/** This thread's user + system CPU in microseconds (clock ticks of 10 ms). */
function mainThreadCpuUs(): number {
  const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

const dir = mkdtempSync(join(tmpdir(), 'session-hub-bench-storage-'));
const config = loadConfig({}, { dataDir: dir, logLevel: 'silent' });
const store = SqliteStore.open(config.databaseFile);
const deps: HubDeps = { store, hubId: 'bench', clock: systemClock, config, log: createLogger('silent'), publisher: { publish() {} } };
const actor: Actor = { namespace: 'default', role: 'runner', by: 'runner', socketId: 'bench' };
try {
  const lanes: { sid: string; version: number }[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const { session } = await startSession(deps, actor, { tag: `bench-${i}`, flavor: 'claude', source: 'startup', metadata: START_METADATA });
    lanes.push({ sid: session.sid, version: session.metadata.version });
  }
  let writes = 0;
  const cpuStart = mainThreadCpuUs();
  const start = performance.now();
  const deadline = start + seconds * 1000;
  await Promise.all(
    lanes.map(async (lane) => {
      while (performance.now() < deadline) {
        const ack = await updateMetadata(deps, actor, { sid: lane.sid, expectedVersion: lane.version, patch: { benchSentAt: performance.now(), benchN: writes, title: `write ${writes}` } });
        if (ack.result !== 'success') throw new Error(`unexpected ack: ${JSON.stringify(ack)}`);
        lane.version = ack.version;
        writes++;
      }
    }),
  );
  const wallUs = (performance.now() - start) * 1000;
  process.stdout.write(
    `${writes} writes in ${seconds} s: ${Math.round(writes / (wallUs / 1e6))} writes/s, main thread ${((mainThreadCpuUs() - cpuStart) / writes).toFixed(1)} µs CPU per write\n`,
  );
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
