import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FLAVORS, getFlavor } from '../../shared/flavors.js';
import { runBridgeCli } from '../hook/bridge.js';
import { configPreview, InstallRefused, mergeConfig } from '../hook/config-files.js';
import { hookArgvFor, hookCommandFor } from '../hook/install.js';
import { lineDiff } from '../hook/line-diff.js';
import { DEFAULT_HOOK_BUDGET_MS } from '../hook/run-hook.js';
import { formatSpoolStatus, needsAttention, spoolStatus } from '../hook/status.js';
import { atomicWrite, defaultSpoolDir } from '../hook/spool.js';

/** The bundled bridge (npm run build): dist/hook-bridge.cjs, beside dist/hub/. */
const BRIDGE_BUNDLE = fileURLToPath(new URL('../../hook-bridge.cjs', import.meta.url));

export const HOOK_HELP = `session-hub hook <flavor>            (reads one hook payload on stdin)
session-hub hook install <flavor> [--write] [--file PATH] [--command CMD]
session-hub hook status [--json]

The agent hook bridge. Called by the agent for each hook event, it writes the payload to its spool
(SESSION_HUB_SPOOL_DIR, default ~/.session-hub), then sends the spool to SESSION_HUB_URL's
POST /api/hooks with SESSION_HUB_TOKEN (a runner token); the hub maps it through the flavor registry.
When the hub is away a detached drainer retries in the background (SESSION_HUB_DRAIN_FOR_MS, default
30 min). It always exits 0 and gives up after about ${DEFAULT_HOOK_BUDGET_MS / 1000} s (SESSION_HUB_HOOK_BUDGET_MS).

install prints the agent's hook configuration in the agent's own format (every hook synchronous: the
agent waits until the event is spooled, so a run that ends cannot lose it); --notify (codex) sets the
agent's notification program instead, for its versions without hooks; --write merges it into the agent's file (default: the flavor's own, relative to the
current directory: .claude/settings.json, .gemini/settings.json, .cursor/hooks.json, ~/.codex/hooks.json
(or $CODEX_HOME/hooks.json),
.opencode/plugins/session-hub.js), keeping every other setting and hook and replacing this bridge's
earlier hooks: it shows the diff and keeps the previous file as <file>.bak-<time>. A file it cannot
merge safely (invalid JSON or TOML, JSON with comments, another notify program) is refused, untouched.
The command runs the bundled bridge directly: node ${BRIDGE_BUNDLE} <flavor>.

status prints, per flavor, the events spooled per session, the events the hub refused, the last
error and the drainer's state.

Flavors: ${[...FLAVORS.keys()].join(', ')}`;

async function install(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { write: { type: 'boolean' }, notify: { type: 'boolean' }, file: { type: 'string' }, command: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const flavorId = positionals[0];
  if (values.help || flavorId === undefined) {
    process.stdout.write(`${HOOK_HELP}\n`);
    if (flavorId === undefined && !values.help) process.exitCode = 2;
    return;
  }
  const agent = getFlavor(flavorId);
  if (agent && values.notify && !agent.hookConfig?.notify) {
    process.stderr.write(`session-hub hook install: --notify is for agents with a notification program (${[...FLAVORS.values()].filter((f) => f.hookConfig?.notify).map((f) => f.id).join(', ')}), not ${agent.displayName}\n`);
    process.exitCode = 2;
    return;
  }
  // --notify: the agent's notification program instead of its hooks (an agent version without hooks)
  const flavor = agent && values.notify ? { ...agent, hookConfig: agent.hookConfig!.notify! } : agent;
  if (!flavor) {
    process.stderr.write(`session-hub hook install: unknown flavor "${flavorId}"\n`);
    process.exitCode = 2;
    return;
  }
  if (!flavor.hookConfig) {
    process.stderr.write(
      `session-hub hook install: session-hub does not know how to wire ${flavor.displayName}'s hooks: its hook events and payloads are not verified against its documentation. ` +
        `The flavor stays declared; the agents it can wire: ${[...FLAVORS.values()].filter((f) => f.hookConfig).map((f) => f.id).join(', ')}\n`,
    );
    process.exitCode = 2;
    return;
  }
  if (values.command === undefined && !existsSync(BRIDGE_BUNDLE)) {
    process.stderr.write(`session-hub hook install: ${BRIDGE_BUNDLE} is missing; run "npm run build" first (or pass --command)\n`);
    process.exitCode = 1;
    return;
  }
  const command = { line: hookCommandFor(flavor.id, { base: values.command, bundle: BRIDGE_BUNDLE }), argv: hookArgvFor(flavor.id, { base: values.command, bundle: BRIDGE_BUNDLE }) };
  if (!values.write) {
    process.stdout.write(configPreview(flavor, command));
    return;
  }
  // a declared file under ~ is the user's (Codex reads ~/.codex/hooks.json, or $CODEX_HOME's), else relative to here
  const dirFromEnv = flavor.hookConfig.dirEnv === undefined ? undefined : process.env[flavor.hookConfig.dirEnv];
  const declared = dirFromEnv
    ? join(dirFromEnv, basename(flavor.hookConfig.file))
    : flavor.hookConfig.file.startsWith('~/') ? join(homedir(), flavor.hookConfig.file.slice(2)) : flavor.hookConfig.file;
  const file = resolve(values.file ?? declared);
  const existing = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  let merged;
  try {
    merged = mergeConfig(flavor, command, existing, file);
  } catch (error) {
    if (!(error instanceof InstallRefused)) throw error;
    process.stderr.write(`session-hub hook install: ${error.message}\n`);
    process.exitCode = 1;
    return;
  }
  if (merged.added.length === 0) {
    process.stdout.write(`${file}: already set up, nothing changed\n`);
    return;
  }
  // the user sees what changes, and keeps the file as it was
  process.stdout.write(`--- ${file}\n+++ ${file} (session-hub hook install ${flavor.id})\n${lineDiff(existing ?? '', merged.text).join('\n')}\n`);
  mkdirSync(dirname(file), { recursive: true });
  let backup = '';
  if (existing !== undefined) {
    backup = `${file}.bak-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    copyFileSync(file, backup);
  }
  atomicWrite(file, merged.text);
  process.stdout.write(`${file}: added ${merged.added.join(', ')}${backup ? `; the previous file is kept as ${backup}` : ''}\n`);
}

function status(argv: string[]): void {
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    process.stdout.write(`${HOOK_HELP}\n`);
    return;
  }
  const dir = defaultSpoolDir(process.env);
  const statuses = spoolStatus(dir);
  if (values.json) process.stdout.write(`${JSON.stringify({ spoolDir: dir, flavors: statuses }, null, 2)}\n`);
  else process.stdout.write(`${formatSpoolStatus(dir, statuses).join('\n')}\n`);
  process.exitCode = statuses.some(needsAttention) ? 1 : 0;
}

export async function hookCommand(argv: string[]): Promise<void> {
  const [first, ...rest] = argv;
  if (first === 'install') return install(rest);
  if (first === 'status') return status(rest);
  if (first === undefined || first === '--help' || first === '-h') {
    process.stdout.write(`${HOOK_HELP}\n`);
    if (first === undefined) process.exitCode = 2;
    return;
  }
  return runBridgeCli(argv);
}
