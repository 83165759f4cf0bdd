/** `session-hub runner` as a process: --help, and the start errors that name what to do. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'session-hub-runner-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('session-hub runner start errors', () => {
  it('--help says how to run it', async () => {
    const run = await runCli(['runner', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('--allow-bypass');
    expect(run.stdout).toContain('SESSION_HUB_MACHINE_TOKEN');
    expect(run.stdout).toContain('SESSION_HUB_ALIVE_EVERY_MS');
  });

  it('without a token: exit 2, how to make one', async () => {
    const run = await runCli(['runner', '--root', dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('SESSION_HUB_MACHINE_TOKEN is not set');
    expect(run.stderr).toContain('--role machine');
  });

  it('a root that does not exist: exit 2, naming it', async () => {
    const run = await runCli(['runner', '--root', join(dir, 'nope')], { env: { SESSION_HUB_MACHINE_TOKEN: 'x' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`root ${join(dir, 'nope')} does not exist`);
  });

  it.each(['0', 'soon', '2.5'])('a heartbeat interval of %s: exit 2, naming the variable and the default', async (value) => {
    const run = await runCli(['runner', '--root', dir], { env: { SESSION_HUB_MACHINE_TOKEN: 'x', SESSION_HUB_ALIVE_EVERY_MS: value } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`SESSION_HUB_ALIVE_EVERY_MS=${value} is not a whole number of milliseconds, 100 or more (default 10000)`);
  });

  it('an unknown option: exit 2', async () => {
    const run = await runCli(['runner', '--rooot', dir], { env: { SESSION_HUB_MACHINE_TOKEN: 'x' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--rooot');
  });

  it('an agent CLI whose --version fails: the log says it may not start, with what it printed, before connecting', async () => {
    const bin = join(dir, 'broken-bin');
    mkdirSync(bin, { recursive: true });
    // what the npm wrapper of Claude Code prints when its native binary was not installed
    writeFileSync(join(bin, 'claude'), '#!/bin/sh\necho "Error: claude native binary not installed." >&2\nexit 1\n', { mode: 0o755 });
    const run = await runCli(['runner', '--root', dir, '--hub', 'http://127.0.0.1:9'], { env: { SESSION_HUB_MACHINE_TOKEN: 'x', XDG_CONFIG_HOME: dir, PATH: `${bin}:/usr/bin:/bin` } });
    const warning = run.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.level === 'warn');
    expect(warning).toMatchObject({ flavor: 'claude', path: join(bin, 'claude') });
    expect(warning!.msg).toBe(`claude may not start: \`${join(bin, 'claude')} --version\` failed: Error: claude native binary not installed.`);
    expect(run.code).toBe(1);
  }, 30_000);

  it('a hub that is not there: exit 1, naming the URL', async () => {
    const run = await runCli(['runner', '--root', dir, '--hub', 'http://127.0.0.1:9'], { env: { SESSION_HUB_MACHINE_TOKEN: 'x', XDG_CONFIG_HOME: dir } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('cannot connect to http://127.0.0.1:9');
  }, 30_000);
});
