/**
 * The hub's write path without sockets: its services and SQLite store in this process, `sessions`
 * sessions each with one `update-metadata` patch in flight (group-committed as on the hub),
 * bench-sized documents. What a write costs before any Socket.IO work: the storage floor of the
 * write benchmark's CPU budget (write-throughput.ts), and on its own `node dist/bench/storage.js`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../hub/clock.js';
import { loadConfig } from '../hub/config.js';
import { startSession } from '../hub/lifecycle/session-start.js';
import { createLogger } from '../hub/log.js';
import type { Actor, HubDeps } from '../hub/services/deps.js';
import { updateMetadata } from '../hub/lifecycle/versioned-writes.js';
import { SqliteStore } from '../hub/store/sqlite/sqlite-store.js';

const START_METADATA = {
  summary: { text: 'A benchmark session writing metadata patches as fast as the hub acknowledges them.', updatedAt: 0 },
  path: '/home/user/project',
  host: 'bench',
  os: 'linux',
};

export interface WritePathResult {
  writes: number;
  writesPerSecond: number;
  /** The event loop's CPU per write: services, merge, SQLite statements and COMMIT. */
  mainThreadUsPerWrite: number;
  /** The whole process's: adds the WAL checkpointer's thread (and V8's helpers). */
  processUsPerWrite: number;
}

/** This thread's user + system CPU in microseconds (clock ticks of 10 ms; Linux). */
function mainThreadCpuUs(): number {
  const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

function processCpuUs(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

export async function measureWritePath(options: { seconds: number; sessions: number; sync?: 'normal' | 'full' }): Promise<WritePathResult> {
  const dir = mkdtempSync(join(tmpdir(), 'session-hub-bench-write-path-'));
  const config = loadConfig({}, { dataDir: dir, logLevel: 'silent', sync: options.sync });
  const store = SqliteStore.open(config.databaseFile, { synchronous: config.sync });
  const deps: HubDeps = { store, hubId: 'bench', clock: systemClock, config, log: createLogger('silent'), publisher: { publish() {} } };
  const actor: Actor = { namespace: 'default', role: 'runner', by: 'runner', socketId: 'bench' };
  try {
    const lanes: { sid: string; version: number }[] = [];
    for (let i = 0; i < options.sessions; i++) {
      const { session } = await startSession(deps, actor, { tag: `bench-${i}`, flavor: 'claude', source: 'startup', metadata: START_METADATA });
      lanes.push({ sid: session.sid, version: session.metadata.version });
    }
    let writes = 0;
    const mainStart = mainThreadCpuUs();
    const processStart = processCpuUs();
    const start = performance.now();
    const deadline = start + options.seconds * 1000;
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
    const wallSeconds = (performance.now() - start) / 1000;
    return {
      writes,
      writesPerSecond: writes / wallSeconds,
      mainThreadUsPerWrite: (mainThreadCpuUs() - mainStart) / writes,
      processUsPerWrite: (processCpuUs() - processStart) / writes,
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
