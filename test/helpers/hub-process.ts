import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { lockDataDir } from '../../hub/store/sqlite/data-dir-lock.js';
import { closeAllClients } from './clients.js';
import { databaseUrlFor, releaseDatabaseOf } from './test-store.js';
import { TEST_TOKEN_SPEC, TEST_TOKENS } from './tokens.js';

const CLI = resolve(import.meta.dirname, '../../dist/hub/cli.js');

/** Every hub process spawned since the last `stopSpawnedHubs`. */
const spawned: HubProcess[] = [];

/**
 * Per test: afterwards every client the helpers opened is closed, every hub process spawned during
 * the test that still runs is stopped (newest first: a restart shares its predecessor's data dir),
 * and then the data dirs they created are removed.
 */
export function stopHubsAfterEach(): void {
  afterEach(async () => {
    closeAllClients();
    const hubs = spawned.splice(0).reverse();
    for (const hub of hubs) if (hub.child.exitCode === null && hub.child.signalCode === null) await hub.stop();
    for (const hub of hubs) await hub.cleanup();
  });
}

export interface HubProcess {
  url: string;
  port: number;
  dataDir: string;
  tokens: typeof TEST_TOKENS;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM and wait for exit. */
  stop(): Promise<number | null>;
  /** SIGKILL (kill -9) and wait for exit. */
  kill9(): Promise<void>;
  /** Removes the data directory and its test database (unless the directory was given). */
  cleanup(): Promise<void>;
}

/**
 * The real hub process (compiled by the global setup) on 127.0.0.1 with the test tokens. Pass the
 * same `dataDir` (and `port`) again to restart it on the same database. `env` sets any
 * SESSION_HUB_* variable, e.g. short sweep intervals.
 */
export async function spawnHub(options: { dataDir?: string; port?: number; env?: Record<string, string> } = {}): Promise<HubProcess> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'session-hub-proc-'));
  const databaseUrl = await databaseUrlFor(dataDir);
  const child = spawn(process.execPath, [CLI, 'start'], {
    env: {
      ...process.env,
      SESSION_HUB_HOST: '127.0.0.1',
      SESSION_HUB_PORT: String(options.port ?? 0),
      SESSION_HUB_DATA: dataDir,
      SESSION_HUB_TOKENS: TEST_TOKEN_SPEC,
      LOG_LEVEL: 'info',
      // hub processes sharing a PostgreSQL store notice a killed one after 3 heartbeats: fast in tests
      SESSION_HUB_HEARTBEAT_MS: '200',
      ...(databaseUrl === undefined ? {} : { SESSION_HUB_DATABASE_URL: databaseUrl }),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));

  const port = await new Promise<number>((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error(`hub did not start in 15 s:\n${output}`)), 15_000);
    const check = () => {
      const match = /session hub listening on http:\/\/[^:]+:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolvePort(Number(match[1]));
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`hub exited with ${code} before listening:\n${output}`));
    });
  });

  const hub: HubProcess = {
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    tokens: TEST_TOKENS,
    child,
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
    kill9: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    cleanup: async () => {
      if (options.dataDir) return;
      rmSync(dataDir, { recursive: true, force: true });
      await releaseDatabaseOf(dataDir);
    },
  };
  spawned.push(hub);
  return hub;
}

/** True when no process holds the SQLite data-dir lock of `dataDir` (taken and given back at once). */
export function dataDirLockFree(dataDir: string): boolean {
  try {
    lockDataDir(dataDir).release();
    return true;
  } catch {
    return false;
  }
}
