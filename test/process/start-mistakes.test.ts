/**
 * The mistakes a new user makes when starting the real hub process: each gives one line naming the
 * cause and the way out, no stack trace, and the process ends (exit 1) instead of hanging.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { waitFor } from '../helpers/clients.js';
import { spawnHub, stopHubsAfterEach } from '../helpers/hub-process.js';
import { databaseUrlFor, releaseDatabaseOf } from '../helpers/test-store.js';

stopHubsAfterEach();

const scratch: string[] = [];
let blocker: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve()));
  blocker = undefined;
  for (const dir of scratch.splice(0)) {
    rmSync(dir, { recursive: true, force: true });
    await releaseDatabaseOf(dir);
  }
});

function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'session-hub-mistake-'));
  scratch.push(dir);
  return dir;
}

/** `session-hub start` on `dataDir` (on the test project's store), expected to fail. */
async function startFails(dataDir: string, env: Record<string, string>): Promise<CliResult> {
  const databaseUrl = await databaseUrlFor(dataDir);
  return runCli(['start'], {
    env: { SESSION_HUB_DATA: dataDir, ...(databaseUrl === undefined ? {} : { SESSION_HUB_DATABASE_URL: databaseUrl }), ...env },
  });
}

/** A port some other program holds until the test ends. */
async function occupyPort(): Promise<number> {
  blocker = createServer();
  const busy = blocker;
  return new Promise<number>((resolve) => busy.listen(0, '127.0.0.1', () => resolve((busy.address() as { port: number }).port)));
}

function expectOneClearLine(result: CliResult): void {
  expect(result.code).toBe(1);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stderr).toMatch(/^session-hub: /);
}

describe('session-hub start: mistakes a person can act on', () => {
  it('port already in use: names the port and SESSION_HUB_PORT, and exits', async () => {
    const port = await occupyPort();
    const failed = await startFails(scratchDir(), { SESSION_HUB_PORT: String(port) });
    expectOneClearLine(failed);
    expect(failed.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
    // the way out names another port, not the taken one (nor a fixed 3738 that may be the taken one)
    expect(failed.stderr).toContain(`SESSION_HUB_PORT=${port + 1} or --port ${port + 1}`);
  });

  it('a Node.js release whose SQLite driver can abort (24.19 to 24.21): one line naming the fix, before the store opens', async () => {
    const dataDir = join(scratchDir(), 'never-created');
    // the real CLI process, told it runs on 24.20.0 (a preload replaces process.version)
    const on24_20 = { NODE_OPTIONS: "--import=data:text/javascript,Object.defineProperty(process,'version',{value:'v24.20.0'})" };
    const failed = await startFails(dataDir, on24_20);
    expectOneClearLine(failed);
    expect(failed.stderr).toContain('Node.js v24.20.0 is not supported');
    expect(failed.stderr).toContain('Install Node 24.22 or newer');
    expect(existsSync(dataDir)).toBe(false);
    // the hook bridge never loads the driver: an agent's hooks keep working on that Node
    const help = await runCli(['hook', 'install', '--help'], { env: on24_20 });
    expect(help.code).toBe(0);
  });

  it('a first start that failed (port in use) keeps no tokens it never printed: the next start prints working ones', async () => {
    const dataDir = scratchDir();
    const failed = await startFails(dataDir, { SESSION_HUB_PORT: String(await occupyPort()) });
    expect(failed.code).toBe(1);
    expect(failed.stdout).not.toContain('shub_');

    const hub = await spawnHub({ dataDir, env: { SESSION_HUB_TOKENS: '' } });
    await waitFor(() => hub.output().includes('First start: created these tokens'), 5000, 'the first tokens, printed');
    const admin = /^\s+admin\s+default\s+(shub_\S+)$/m.exec(hub.output())?.[1];
    const whoami = await fetch(`${hub.url}/api/whoami`, { headers: { authorization: `Bearer ${admin}` } });
    expect(await whoami.json()).toEqual({ role: 'admin', namespace: 'default' });
  });

  it('a data directory that cannot be created: names it and SESSION_HUB_DATA', async () => {
    const file = join(scratchDir(), 'a-file');
    writeFileSync(file, '');
    const result = await runCli(['start'], { env: { SESSION_HUB_DATA: join(file, 'data'), SESSION_HUB_PORT: '0' } });
    expectOneClearLine(result);
    expect(result.stderr).toContain(`cannot use the data directory ${join(file, 'data')} (SESSION_HUB_DATA or --data): ${file} is a file, not a directory`);
  });

  it('a data directory under /proc (where Node\'s recursive mkdir spun for ever): exits at once, naming it', async () => {
    const result = await runCli(['start'], { env: { SESSION_HUB_DATA: '/proc/session-hub-x/data', SESSION_HUB_PORT: '0' } });
    expectOneClearLine(result);
    expect(result.stderr).toContain('cannot use the data directory /proc/session-hub-x/data (SESSION_HUB_DATA or --data): cannot create /proc/session-hub-x');
  }, 10_000);

  it('a data directory that is a file: exits at once, naming it', async () => {
    const file = join(scratchDir(), 'a-file');
    writeFileSync(file, '');
    const result = await runCli(['start'], { env: { SESSION_HUB_DATA: file, SESSION_HUB_PORT: '0' } });
    expectOneClearLine(result);
    expect(result.stderr).toContain(`cannot use the data directory ${file} (SESSION_HUB_DATA or --data): ${file} is a file, not a directory`);
  }, 10_000);

  it('SIGTERM while the start waits on a database that accepts connections but never answers: the process ends, exit 1, saying so', async () => {
    let reached: () => void = () => undefined;
    const waiting = new Promise<void>((resolveReached) => (reached = resolveReached));
    const silent = createServer((connection) => {
      connection.on('error', () => undefined);
      reached();
    });
    const port = await new Promise<number>((resolve) => silent.listen(0, '127.0.0.1', () => resolve((silent.address() as { port: number }).port)));
    const child = spawn(process.execPath, [resolve(import.meta.dirname, '../../dist/hub/cli.js'), 'start'], {
      env: { PATH: process.env.PATH, SESSION_HUB_PORT: '0', SESSION_HUB_DATA: scratchDir(), SESSION_HUB_DATABASE_URL: `postgres://hub:hub@127.0.0.1:${port}/hub` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
    // the start is waiting on the database: the hub opened its connection
    await waiting;
    child.kill('SIGTERM');
    expect(await exited).toBe(1);
    expect(stderr).toContain('stopped by SIGTERM while starting');
    silent.close();
  }, 15_000);

  it('SESSION_HUB_TOKENS: an entry without its token, and one token given two grants, are refused by entry number', async () => {
    const missing = await startFails(scratchDir(), { SESSION_HUB_PORT: '0', SESSION_HUB_TOKENS: 'runner:default' });
    expectOneClearLine(missing);
    expect(missing.stderr).toContain('SESSION_HUB_TOKENS entry 1: no token; use role:namespace:token');

    const twice = await startFails(scratchDir(), {
      SESSION_HUB_PORT: '0',
      SESSION_HUB_TOKENS: 'runner:default:same-secret-1,dashboard:default:other-secret,admin:default:same-secret-1',
    });
    expectOneClearLine(twice);
    expect(twice.stderr).toContain('SESSION_HUB_TOKENS entries 1 and 3 use the same token for different grants');
  });
});
