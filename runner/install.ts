/**
 * `session-hub runner install`: writes a systemd user unit that runs the runner with the same
 * options, so it survives logout (with `loginctl enable-linger`) and restarts. KillMode=mixed: on
 * stop systemd sends SIGTERM to the runner alone (it stops its agents and reports their runs), then
 * SIGKILL to everything left in the unit's cgroup, agents included: none is left orphaned.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseRunnerArgs, RUNNER_HELP, StartError } from './config.js';

/**
 * One word of a systemd command line, taken literally: systemd expands `%` specifiers and `$VAR`
 * everywhere in ExecStart, quoted or not (doubled, each is itself), and splits at whitespace outside
 * double quotes (inside them `"` and `\` are backslash-escaped).
 */
export function systemdWord(word: string): string {
  const literal = word.replace(/%/g, '%%').replace(/\$/g, '$$$$');
  return /^[\w@%$+=:,./-]+$/.test(literal) ? literal : `"${literal.replace(/(["\\])/g, '\\$1')}"`;
}

export function unitText(options: { node: string; bin: string; args: string[]; envFile: string }): string {
  const command = [options.node, options.bin, 'runner', ...options.args].map(systemdWord).join(' ');
  return `[Unit]
Description=Session Hub machine runner
After=network-online.target

[Service]
Type=simple
# SESSION_HUB_MACHINE_TOKEN_FILE (the token's own file, 0600), SESSION_HUB_URL and PATH live here
EnvironmentFile=${options.envFile.replace(/%/g, '%%')}
ExecStart=${command}
Restart=on-failure
RestartSec=5
KillMode=mixed
TimeoutStopSec=30

[Install]
WantedBy=default.target
`;
}

export async function installCommand(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${RUNNER_HELP}\n`);
    return;
  }
  let config;
  try {
    config = parseRunnerArgs(argv); // the same start errors now rather than in the journal
  } catch (error) {
    if (error instanceof StartError) {
      process.stderr.write(`session-hub runner install: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
  if (config === 'help') return;
  // absolute roots: the unit starts in $HOME, not where install ran
  const args = ['--hub', config.hubUrl, '--name', config.name, ...config.roots.flatMap((root) => ['--root', root]), ...(config.allowBypass ? ['--allow-bypass'] : [])];
  const configHome = process.env.XDG_CONFIG_HOME?.startsWith('/') ? process.env.XDG_CONFIG_HOME : join(homedir(), '.config');
  const ourDir = join(configHome, 'session-hub');
  const envFile = join(ourDir, 'runner.env');
  const tokenFile = join(ourDir, 'machine-token');
  const unitDir = join(configHome, 'systemd', 'user');
  // explicit modes, chmod after each write: a umask of 000 must not widen any of them
  makeDirs(configHome, ['systemd', 'user'], 0o755);
  makeDirs(configHome, ['session-hub'], 0o700);
  chmodSync(ourDir, 0o700); // ours: it holds the token, whoever made it first
  // the token in its own file, named by the unit's environment: in no process environment an agent can read
  writeOwnFile(tokenFile, `${config.token}\n`, 0o600);
  const env = [`SESSION_HUB_MACHINE_TOKEN_FILE=${tokenFile}`, ...(['SESSION_HUB_URL', 'SESSION_HUB_ALIVE_EVERY_MS'] as const).flatMap((name) => (process.env[name] ? [`${name}=${process.env[name]}`] : [])), `PATH=${process.env.PATH ?? ''}`];
  writeOwnFile(envFile, `${env.join('\n')}\n`, 0o600);
  const bin = join(import.meta.dirname, '..', '..', 'bin', 'session-hub.js');
  const unitFile = join(unitDir, 'session-hub-runner.service');
  writeOwnFile(unitFile, unitText({ node: process.execPath, bin, args, envFile }), 0o644);
  process.stdout.write(`wrote ${unitFile}, ${envFile} and ${tokenFile} (the machine token, readable by you alone)\nthen: systemctl --user daemon-reload && systemctl --user enable --now session-hub-runner\n      loginctl enable-linger $USER   # keep it running after you log out\n`);
}

/** Creates `base/parts…` one directory at a time; each one it creates gets `mode` (chmod, whatever the umask); existing ones are left as they are. */
function makeDirs(base: string, parts: string[], mode: number): void {
  mkdirSync(base, { recursive: true, mode: 0o700 });
  let dir = base;
  for (const part of parts) {
    dir = join(dir, part);
    try {
      mkdirSync(dir, { mode });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw error;
    }
    chmodSync(dir, mode);
  }
}

function writeOwnFile(path: string, text: string, mode: number): void {
  writeFileSync(path, text, { mode });
  // writeFileSync's mode applies only to a new file, and through the umask
  chmodSync(path, mode);
}
