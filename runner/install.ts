/**
 * `session-hub runner install`: writes a systemd user unit that runs the runner with the same
 * options, so it survives logout (with `loginctl enable-linger`) and restarts. KillMode=mixed: on
 * stop systemd sends SIGTERM to the runner alone (it stops its agents and reports their runs), then
 * SIGKILL to everything left in the unit's cgroup, agents included: none is left orphaned.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
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
# SESSION_HUB_MACHINE_TOKEN=… (and SESSION_HUB_URL) live here, readable by you alone
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
  const envFile = join(configHome, 'session-hub', 'runner.env');
  const unitDir = join(configHome, 'systemd', 'user');
  mkdirSync(unitDir, { recursive: true });
  mkdirSync(join(configHome, 'session-hub'), { recursive: true, mode: 0o700 });
  const env = [`SESSION_HUB_MACHINE_TOKEN=${process.env.SESSION_HUB_MACHINE_TOKEN ?? ''}`, ...(['SESSION_HUB_URL', 'SESSION_HUB_ALIVE_EVERY_MS'] as const).flatMap((name) => (process.env[name] ? [`${name}=${process.env[name]}`] : [])), `PATH=${process.env.PATH ?? ''}`];
  writeFileSync(envFile, `${env.join('\n')}\n`, { mode: 0o600 });
  const bin = join(import.meta.dirname, '..', '..', 'bin', 'session-hub.js');
  const unitFile = join(unitDir, 'session-hub-runner.service');
  writeFileSync(unitFile, unitText({ node: process.execPath, bin, args, envFile }));
  process.stdout.write(`wrote ${unitFile} and ${envFile}\nthen: systemctl --user daemon-reload && systemctl --user enable --now session-hub-runner\n      loginctl enable-linger $USER   # keep it running after you log out\n`);
}
