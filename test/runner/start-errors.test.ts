/** `session-hub runner` as a process: --help, and the start errors that name what to do. */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unreachableUrl } from '../agents/helpers/refusing-model-server.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'session-hub-runner-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** Where no hub listens: the runner fails at once (test/runner/hub-link-words.test.ts). */
let nowhere: string;
beforeAll(async () => {
  nowhere = await unreachableUrl();
});

describe('session-hub runner start errors', () => {
  it('--help says how to run it', async () => {
    const run = await runCli(['runner', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('--allow-bypass');
    expect(run.stdout).toContain('SESSION_HUB_MACHINE_TOKEN_FILE');
    expect(run.stdout).toContain('SESSION_HUB_MACHINE_TOKEN ');
    expect(run.stdout).toContain('SESSION_HUB_ALIVE_EVERY_MS');
  });

  it('without a token: exit 2, how to make one', async () => {
    const run = await runCli(['runner', '--root', dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('neither SESSION_HUB_MACHINE_TOKEN_FILE nor SESSION_HUB_MACHINE_TOKEN is set');
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
    const run = await runCli(['runner', '--root', dir, '--hub', nowhere], { env: { SESSION_HUB_MACHINE_TOKEN: 'x', XDG_CONFIG_HOME: dir, PATH: `${bin}:/usr/bin:/bin` } });
    const warning = run.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.level === 'warn' && line.flavor !== undefined);
    expect(warning).toMatchObject({ flavor: 'claude', path: join(bin, 'claude') });
    expect(warning!.msg).toBe(`claude may not start: \`${join(bin, 'claude')} --version\` failed: Error: claude native binary not installed.`);
    expect(run.code).toBe(1);
  }, 30_000);

  it('a token file group or others may read or write: exit 2, naming the chmod', async () => {
    for (const mode of [0o644, 0o620, 0o604]) {
      const file = join(dir, `token-${mode.toString(8)}`);
      writeFileSync(file, 'x\n');
      chmodSync(file, mode);
      const run = await runCli(['runner', '--root', dir], { env: { SESSION_HUB_MACHINE_TOKEN_FILE: file } });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`SESSION_HUB_MACHINE_TOKEN_FILE=${file} has mode ${mode.toString(8)}: group or others may read or write it; run chmod 600 ${file}`);
    }
  });

  it('a token file that is not a regular file (a directory, a symlink), missing or empty: exit 2, saying which', async () => {
    const target = join(dir, 'token-target');
    writeFileSync(target, 'x\n', { mode: 0o600 });
    const link = join(dir, 'token-link');
    symlinkSync(target, link);
    const folder = join(dir, 'token-dir');
    mkdirSync(folder, { mode: 0o700 });
    for (const file of [link, folder]) {
      const run = await runCli(['runner', '--root', dir], { env: { SESSION_HUB_MACHINE_TOKEN_FILE: file } });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`SESSION_HUB_MACHINE_TOKEN_FILE=${file} is not a regular file`);
    }
    const missing = await runCli(['runner', '--root', dir], { env: { SESSION_HUB_MACHINE_TOKEN_FILE: join(dir, 'nope') } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot be read: ENOENT');
    const empty = join(dir, 'token-empty');
    writeFileSync(empty, '\n', { mode: 0o600 });
    const blank = await runCli(['runner', '--root', dir], { env: { SESSION_HUB_MACHINE_TOKEN_FILE: empty } });
    expect(blank.code).toBe(2);
    expect(blank.stderr).toContain('is empty');
  });

  it('the token in the environment: accepted, with a warning that the agents can read it there', async () => {
    const run = await runCli(['runner', '--root', dir, '--hub', nowhere], { env: { SESSION_HUB_MACHINE_TOKEN: 'x', XDG_CONFIG_HOME: dir } });
    const warnings = run.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.level === 'warn');
    expect(warnings.map((w) => w.msg)).toContainEqual(expect.stringContaining('which every agent it starts can read (/proc/<runner pid>/environ): put the token in a file only you can read and pass SESSION_HUB_MACHINE_TOKEN_FILE'));
    const file = join(dir, 'token-ok');
    writeFileSync(file, 'x\n', { mode: 0o600 });
    const quiet = await runCli(['runner', '--root', dir, '--hub', nowhere], { env: { SESSION_HUB_MACHINE_TOKEN_FILE: file, XDG_CONFIG_HOME: dir } });
    expect(quiet.stdout).not.toContain('SESSION_HUB_MACHINE_TOKEN_FILE instead');
    expect(quiet.stderr).toContain(`no hub answers at ${nowhere}`);
  }, 60_000);
});
