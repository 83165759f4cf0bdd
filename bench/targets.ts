/**
 * The servers the benchmarks run against, each in its own child process so the bench clients never
 * share their event loop: the real hub (dist/hub/cli.js start; the write bench and the soak) and the
 * bare Socket.IO ceiling (dist/bench/bare-server.js; the write bench).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { processCpuSeconds } from './machine-cpu.js';

export interface Target {
  name: string;
  url: string;
  token: string;
  /** CPU seconds (user + system) the target's process has used so far. */
  cpuSeconds(): number;
  /** The same for its main thread alone (the event loop; worker threads excluded). */
  mainThreadCpuSeconds?(): number;
  /** Bytes of the target's SQLite WAL file now, where it has one. */
  walBytes?(): number;
  /** How the target's process ended, once it has (code, or the signal that killed it). */
  exitStatus?(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  stop(): Promise<void>;
}

const DIST = resolve(import.meta.dirname, '..');
export const BENCH_TOKEN = 'bench-runner-token-0001';
/** High enough that the limiter never answers `rate_limited` during a run. */
export const BENCH_RATE_LIMIT = 1_000_000_000;

/** Starts `node script args` and resolves with the port it prints on a line matching `pattern`. */
function startChild(script: string, args: string[], env: NodeJS.ProcessEnv, pattern: RegExp): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []), script, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start in 15 s:\n${output}`)), 15_000);
    const onData = (chunk: Buffer) => {
      // keep only the start of the output: the pipe must be drained but the logs are not needed
      if (output.length < 20_000) output += chunk.toString();
      const match = pattern.exec(output);
      if (match) {
        clearTimeout(timer);
        resolvePort({ child, port: Number(match[1]) });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before listening:\n${output}`));
    });
  });
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolveStop) => {
      if (child.exitCode !== null) return resolveStop();
      child.once('exit', () => resolveStop());
      child.kill('SIGTERM');
    });
}

/**
 * The real hub CLI on a temporary data directory (removed by `stop`), rate limit lifted. `tokens` is
 * a SESSION_HUB_TOKENS value; by default one runner token, BENCH_TOKEN. `env` is added to the hub's
 * environment (e.g. SESSION_HUB_DATABASE_URL, SESSION_HUB_REDIS_URL for the scale-out bench).
 */
export async function startHubTarget(tokens = `runner:default:${BENCH_TOKEN}`, env: NodeJS.ProcessEnv = {}): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), 'session-hub-bench-'));
  const { child, port } = await startChild(
    // BENCH_HUB_CLI: another build's hub (e.g. the commit before a change), for before/after in alternating runs
    process.env.BENCH_HUB_CLI ?? join(DIST, 'hub/cli.js'),
    ['start'],
    {
      ...process.env,
      SESSION_HUB_HOST: '127.0.0.1',
      SESSION_HUB_PORT: '0',
      SESSION_HUB_DATA: dataDir,
      SESSION_HUB_TOKENS: tokens,
      SESSION_HUB_RATE_LIMIT: String(BENCH_RATE_LIMIT),
      SESSION_HUB_RATE_BURST: String(BENCH_RATE_LIMIT),
      SESSION_HUB_TOKEN_RATE_LIMIT: String(BENCH_RATE_LIMIT),
      SESSION_HUB_TOKEN_RATE_BURST: String(BENCH_RATE_LIMIT),
      LOG_LEVEL: 'info', // the start line with the port is at info; the pipe is drained, not kept
      ...env,
    },
    /session hub listening on http:\/\/[^:]+:(\d+)/,
  );
  const stop = stopper(child);
  return {
    name: 'hub',
    url: `http://127.0.0.1:${port}`,
    token: BENCH_TOKEN,
    cpuSeconds: () => processCpuSeconds(child.pid),
    mainThreadCpuSeconds: () => processCpuSeconds(child.pid, child.pid),
    exitStatus: () => (child.exitCode === null && child.signalCode === null ? undefined : { code: child.exitCode, signal: child.signalCode }),
    walBytes: () => {
      try {
        return statSync(join(dataDir, 'hub.db-wal')).size;
      } catch {
        return 0;
      }
    },
    stop: async () => {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The bare Socket.IO server: ack + broadcast, nothing else. */
export async function startBareTarget(): Promise<Target> {
  const { child, port } = await startChild(join(DIST, 'bench/bare-server.js'), [], { ...process.env }, /bare server listening on port (\d+)/);
  return {
    name: 'bare',
    url: `http://127.0.0.1:${port}`,
    token: BENCH_TOKEN,
    cpuSeconds: () => processCpuSeconds(child.pid),
    mainThreadCpuSeconds: () => processCpuSeconds(child.pid, child.pid),
    stop: stopper(child),
  };
}
