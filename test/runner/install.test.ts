/**
 * `session-hub runner install` as a new user runs it: the real CLI writes the systemd user unit and
 * its environment file; then the unit's own ExecStart, with only what systemd would give it (the
 * EnvironmentFile's variables and HOME, started in /), brings the machine online on a real hub,
 * and the SIGTERM systemd sends on stop (KillMode=mixed: the runner first) ends it cleanly.
 * systemd itself is not run: this sandbox has no user manager (docs/runner.md says how to enable it).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Machine } from '../../shared/protocol/machines.js';
import { runCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';

let hub: TestHub;
useTestHub((started) => (hub = started));

const home = mkdtempSync(join(tmpdir(), 'session-hub-install-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const config = join(home, '.config');
const unitFile = join(config, 'systemd', 'user', 'session-hub-runner.service');
const envFile = join(config, 'session-hub', 'runner.env');
const tokenFile = join(config, 'session-hub', 'machine-token');

/** The value of a `Key=` line of the unit. */
function unitLine(unit: string, key: string): string {
  const line = unit.split('\n').find((l) => l.startsWith(`${key}=`));
  if (line === undefined) throw new Error(`the unit has no ${key}=`);
  return line.slice(key.length + 1);
}

/** A systemd command line as systemd reads it (systemd.service(5), "Command lines"): words, quotes, `%%` and `$$`. */
function systemdWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (!quoted && /\s/.test(c)) {
      if (word !== null) words.push(word), (word = null);
    } else if (c === '"') {
      quoted = !quoted;
      word ??= '';
    } else if (quoted && c === '\\') {
      word = (word ?? '') + line[++i];
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== null) words.push(word);
  return words.map((w) => w.replace(/%%/g, '%').replace(/\$\$/g, '$'));
}

async function machines(): Promise<Machine[]> {
  const response = await fetch(`${hub.url}/api/machines`, { headers: { authorization: `Bearer ${hub.tokens.operator}` } });
  return ((await response.json()) as { machines: Machine[] }).machines;
}

describe('session-hub runner install', () => {
  it('without a machine token: exit 2 naming it, and writes nothing', async () => {
    const run = await runCli(['runner', 'install', '--root', home], { env: { HOME: home } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('neither SESSION_HUB_MACHINE_TOKEN_FILE nor SESSION_HUB_MACHINE_TOKEN is set');
    expect(existsSync(unitFile)).toBe(false);
  });

  it('writes a unit whose ExecStart, run as systemd runs it, brings the machine online; SIGTERM ends it cleanly', async () => {
    // a name systemd would otherwise split, expand ($HOME, %h) or unquote
    const name = 'Alice\'s "work" laptop: 100% $HOME %h';
    const code = join(home, 'code');
    mkdirSync(code, { recursive: true });
    const run = await runCli(['runner', 'install', '--hub', hub.url, '--root', code, '--name', name], {
      env: { HOME: home, SESSION_HUB_MACHINE_TOKEN: hub.tokens.machine },
      cwd: code,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('systemctl --user enable --now session-hub-runner');

    // the token lives in a file only its owner reads, in a directory only its owner opens; the
    // unit's environment names the file, never the token (the agents can read the runner's environment)
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(config, 'session-hub')).mode & 0o777).toBe(0o700);
    const env = Object.fromEntries(readFileSync(envFile, 'utf8').trim().split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
    expect(env.SESSION_HUB_MACHINE_TOKEN).toBeUndefined();
    expect(env.SESSION_HUB_MACHINE_TOKEN_FILE).toBe(tokenFile);
    expect(readFileSync(tokenFile, 'utf8').trim()).toBe(hub.tokens.machine);
    expect(readFileSync(envFile, 'utf8')).not.toContain(hub.tokens.machine);
    expect(env.PATH).toBe(process.env.PATH);

    const unit = readFileSync(unitFile, 'utf8');
    expect(unitLine(unit, 'EnvironmentFile')).toBe(envFile);
    expect(unitLine(unit, 'KillMode')).toBe('mixed');
    expect(unitLine(unit, 'Restart')).toBe('on-failure');
    expect(unitLine(unit, 'WantedBy')).toBe('default.target');
    const [node, ...args] = systemdWords(unitLine(unit, 'ExecStart'));
    // absolute everything: the unit does not start where install ran
    expect(node).toBe(process.execPath);
    expect(args.slice(1)).toEqual(['runner', '--hub', hub.url, '--name', name, '--root', code]);

    // systemd's start: the environment file and HOME, nothing of this shell, in /
    const child = spawn(node!, args, { cwd: '/', env: { ...env, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolveExit) => child.once('exit', (status) => resolveExit(status)));
    try {
      await waitFor(async () => (await machines()).some((m) => m.name === name && m.online), 20_000, `the installed runner online (its output: ${output})`);
      const machine = (await machines()).find((m) => m.name === name)!;
      expect(machine.roots).toEqual([code]);
      // its id is kept in the user's config, where the hook bridge finds it
      expect(existsSync(join(config, 'session-hub', 'machine.json'))).toBe(true);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    await waitFor(async () => (await machines()).some((m) => m.name === name && !m.online), 10_000, 'the machine offline after the stop');
  }, 60_000);

  it('under umask 000 writes nothing group- or world-writable, and nothing of ours readable by others', async () => {
    const other = mkdtempSync(join(tmpdir(), 'session-hub-install-umask-'));
    try {
      // the umask is per process: the CLI runs in a node child that sets it to 000 first
      const cli = join(import.meta.dirname, '../../dist/hub/cli.js');
      const script = `process.umask(0); await import(${JSON.stringify(cli)});`;
      const run = await new Promise<{ code: number | null; output: string }>((resolveRun) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script, 'placeholder', 'runner', 'install', '--hub', hub.url, '--root', other], {
          env: { PATH: process.env.PATH ?? '', HOME: other, SESSION_HUB_MACHINE_TOKEN: hub.tokens.machine },
          cwd: other,
        });
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.once('close', (code) => resolveRun({ code, output }));
      });
      expect(run.code, run.output).toBe(0);
      const modeOf = (path: string) => statSync(path).mode & 0o777;
      const conf = join(other, '.config');
      for (const dir of [conf, join(conf, 'systemd'), join(conf, 'systemd', 'user'), join(conf, 'session-hub')]) expect(modeOf(dir) & 0o022, `${dir} ${modeOf(dir).toString(8)}`).toBe(0);
      expect(modeOf(join(conf, 'session-hub'))).toBe(0o700);
      expect(modeOf(join(conf, 'systemd', 'user', 'session-hub-runner.service'))).toBe(0o644);
      expect(modeOf(join(conf, 'session-hub', 'runner.env'))).toBe(0o600);
      expect(modeOf(join(conf, 'session-hub', 'machine-token'))).toBe(0o600);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
