import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dataDirLockFree, spawnHub, stopHubsAfterEach } from '../helpers/hub-process.js';
import { TEST_TOKEN_SPEC } from '../helpers/tokens.js';

stopHubsAfterEach();

const CLI = resolve(import.meta.dirname, '../../dist/hub/cli.js');
/** SQLite: the data-dir lock is what a start interrupted by a signal could leave behind. */
const SQLITE = { SESSION_HUB_DATABASE_URL: '' };
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * Starts the real hub and sends `signal` the moment it takes `<data>/hub.lock`, i.e. while it is
 * still starting (store, migrations, boot grace and sweep, then listen). Resolves with how it exited.
 */
async function signalDuringStart(signal: NodeJS.Signals) {
  const dataDir = mkdtempSync(join(tmpdir(), 'session-hub-sigstart-'));
  dirs.push(dataDir);
  const lockTaken = new Promise<void>((resolveLock) => {
    const watcher = watch(dataDir, (_event, name) => {
      if (name !== 'hub.lock') return;
      watcher.close();
      resolveLock();
    });
  });
  const child = spawn(process.execPath, [CLI, 'start'], {
    env: { ...process.env, SESSION_HUB_HOST: '127.0.0.1', SESSION_HUB_PORT: '0', SESSION_HUB_DATA: dataDir, SESSION_HUB_TOKENS: TEST_TOKEN_SPEC, LOG_LEVEL: 'info', ...SQLITE },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) =>
    child.once('exit', (code, exitSignal) => resolveExit({ code, signal: exitSignal })),
  );
  await lockTaken;
  child.kill(signal);
  return { dataDir, exit: await exited, output: () => output };
}

describe('a stop signal while the hub is starting', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal}: exits 0 on its own, releases hub.lock, and the next start is clean`, async () => {
      const { dataDir, exit, output } = await signalDuringStart(signal);
      expect(exit, output()).toEqual({ code: 0, signal: null });
      expect(dataDirLockFree(dataDir)).toBe(true);
      expect(output()).toContain('stopped');

      const restarted = await spawnHub({ dataDir, env: SQLITE });
      expect((await fetch(`${restarted.url}/healthz`)).status).toBe(200);
      expect(await restarted.stop()).toBe(0);
    });
  }
});
