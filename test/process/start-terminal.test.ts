/**
 * Issue 22 point 3: `session-hub start` on a terminal prints a short banner (page, one-time sign-in
 * link, data) and readable log lines, not JSON; piped (a service manager, a log collector), it keeps
 * pino's JSON lines and prints the sign-in link on one plain line. The terminal is a real pty
 * (util-linux `script`); the hub is stopped the way a person does, Ctrl+C typed into that terminal.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnHub, stopHubsAfterEach } from '../helpers/hub-process.js';
import { databaseUrlFor, releaseDatabaseOf } from '../helpers/test-store.js';
import { waitFor } from '../helpers/clients.js';

const CLI = resolve(import.meta.dirname, '../../dist/hub/cli.js');
// eslint-disable-next-line no-control-regex
const COLOURS = /\x1b\[[0-9;]*m/g;

stopHubsAfterEach();
const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) {
    rmSync(dir, { recursive: true, force: true });
    await releaseDatabaseOf(dir);
  }
});

describe('session-hub start', () => {
  it('on a terminal: a banner with the one-time sign-in link, readable log lines, Ctrl+C stops it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'session-hub-tty-'));
    dirs.push(dataDir);
    const databaseUrl = await databaseUrlFor(dataDir);
    // `exec`: script runs the command through $SHELL (dash when unset, as on CI), and a shell left
    // waiting would take the Ctrl+C itself and exit 130 while the hub stops cleanly
    const child = spawn('script', ['-qfec', `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} start`, '/dev/null'], {
      env: {
        ...process.env,
        SESSION_HUB_HOST: '127.0.0.1',
        SESSION_HUB_PORT: '0',
        SESSION_HUB_DATA: dataDir,
        SESSION_HUB_TOKENS: '',
        LOG_LEVEL: 'info',
        ...(databaseUrl === undefined ? {} : { SESSION_HUB_DATABASE_URL: databaseUrl }),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    try {
      await waitFor(() => output.includes('stop      Ctrl+C'), 20_000, `the banner, got:\n${output}`);
      const text = output.replace(COLOURS, '').replaceAll('\r', '');
      const link = /sign in {3}(http:\/\/127\.0\.0\.1:\d+)\/\?code=([A-Za-z0-9_-]+)/.exec(text);
      expect(link, text).not.toBeNull();
      expect(text).toContain('Session Hub is running');
      expect(text).toMatch(/page {6}http:\/\/127\.0\.0\.1:\d+\//);
      // a readable line: time, level, message; no JSON line anywhere
      expect(text).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: session hub listening on http/m);
      expect(text).not.toMatch(/^\{"level"/m);
      // the link works once, and its page address never held the token it gives
      const base = link![1]!;
      const exchanged = await fetch(`${base}/api/sign-in/code`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: link![2] }) });
      expect(exchanged.status).toBe(200);
      const { token } = (await exchanged.json()) as { token: string };
      expect(text).not.toContain(token);

      child.stdin.write('\x03');
      expect(await exited).toBe(0);
      expect(output.replace(COLOURS, '')).toMatch(/INFO: stopped/);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('piped: JSON log lines, and the sign-in link on one plain line', async () => {
    const hub = await spawnHub();
    await waitFor(() => hub.output().includes('Sign in: '), 10_000, 'the sign-in line');
    const lines = hub.output().split('\n').filter(Boolean);
    const signIn = lines.filter((line) => !line.startsWith('{'));
    expect(signIn).toEqual([expect.stringMatching(new RegExp(`^Sign in: ${hub.url}/\\?code=[A-Za-z0-9_-]+ \\(works once, within 10 minutes\\)$`))]);
    expect(lines.some((line) => line.startsWith('{') && JSON.parse(line).msg.startsWith('session hub listening'))).toBe(true);
  });
});
