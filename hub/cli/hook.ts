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
import { targetOf } from '../hook/drainer.js';
import { retryRefused } from '../hook/retry-refused.js';
import { formatSpoolStatus, needsAttention, spoolStatus } from '../hook/status.js';
import { atomicWrite, defaultSpoolDir } from '../hook/spool.js';
import { wakeWaitMs } from '../hook/wake-hook.js';
import { applyUserConfig, readUserConfig, userConfigPath } from '../hook/user-config.js';
import { closestName } from './closest-name.js';

/** The bundled bridge (npm run build): dist/hook-bridge.cjs, beside dist/hub/. */
const BRIDGE_BUNDLE = fileURLToPath(new URL('../../hook-bridge.cjs', import.meta.url));

export const HOOK_HELP = `session-hub hook <flavor>            (reads one hook payload on stdin)
session-hub hook install <flavor> [--write] [--user] [--file PATH] [--command CMD]
session-hub hook status [--json]
session-hub hook retry-refused

The agent hook bridge. Called by the agent for each hook event, it writes the payload to its spool
(SESSION_HUB_SPOOL_DIR, default ~/.session-hub), then sends the spool to SESSION_HUB_URL's
POST /api/hooks with SESSION_HUB_TOKEN (an agent token), or the hub and token \`session-hub login\`
kept; the hub maps it through the flavor registry.
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
--user writes the agent's user-level file instead, for every project (~/.claude/settings.json,
~/.gemini/settings.json, ~/.cursor/hooks.json). The command runs the bundled bridge directly:
node ${BRIDGE_BUNDLE} <flavor>. The hooks find the hub and token in SESSION_HUB_URL and
SESSION_HUB_TOKEN, or else in the config \`session-hub login <url>\` keeps.

status prints, per hub and flavor, the events spooled per session, the events the hub refused, the
last error and the drainer's state; damaged files set aside, a spool that cannot be written, and hook
calls that sent nothing (unknown flavor, no session id). Exit 1 when something needs a person now.

retry-refused puts the events refused for their token (and those written with no hub set) back in the
spool of SESSION_HUB_URL with SESSION_HUB_TOKEN, and sends them: run it once the token is fixed.

Flavors: ${[...FLAVORS.keys()].join(', ')}`;

async function install(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { write: { type: 'boolean' }, user: { type: 'boolean' }, notify: { type: 'boolean' }, file: { type: 'string' }, command: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
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
    const known = [...FLAVORS.keys()];
    const suggestion = closestName(flavorId, known);
    process.stderr.write(`session-hub hook install: unknown flavor "${flavorId}"${suggestion ? `; did you mean "${suggestion}"?` : ''} The flavors: ${known.join(', ')}\n`);
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
  if (flavor.hookConfig.wakeHook) {
    try {
      wakeWaitMs(process.env, flavor.hookConfig.wakeHook.waitMs);
    } catch (error) {
      process.stderr.write(`session-hub hook install: ${(error as Error).message}\n`);
      process.exitCode = 2;
      return;
    }
  }
  if (values.command === undefined && !existsSync(BRIDGE_BUNDLE)) {
    process.stderr.write(`session-hub hook install: ${BRIDGE_BUNDLE} is missing; run "npm run build" first (or pass --command)\n`);
    process.exitCode = 1;
    return;
  }
  const command = { line: hookCommandFor(flavor.id, { base: values.command, bundle: BRIDGE_BUNDLE }), argv: hookArgvFor(flavor.id, { base: values.command, bundle: BRIDGE_BUNDLE }) };
  if (!values.write) {
    process.stdout.write(configPreview(flavor, command));
    // stdout stays the configuration alone (it may be redirected into a file)
    process.stderr.write(environmentNote());
    return;
  }
  // --user: the agent's user-level file, for every project (a flavor whose only file is the user's uses that)
  const userFile = flavor.hookConfig.userFile ?? (flavor.hookConfig.file.startsWith('~/') ? flavor.hookConfig.file : undefined);
  if (values.user && userFile === undefined) {
    process.stderr.write(`session-hub hook install: ${flavor.displayName} has no user-level hook file session-hub writes; install per project (${flavor.hookConfig.file}), without --user\n`);
    process.exitCode = 2;
    return;
  }
  const chosen = values.user ? userFile! : flavor.hookConfig.file;
  // a declared file under ~ is the user's (Codex reads ~/.codex/hooks.json, or $CODEX_HOME's), else relative to here
  const dirFromEnv = flavor.hookConfig.dirEnv === undefined ? undefined : process.env[flavor.hookConfig.dirEnv];
  const declared = dirFromEnv ? join(dirFromEnv, basename(chosen)) : chosen.startsWith('~/') ? join(process.env.HOME || homedir(), chosen.slice(2)) : chosen;
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
    process.stdout.write(`${file}: already set up, nothing changed\n${environmentNote()}`);
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
  process.stdout.write(`${file}: added ${merged.added.join(', ')}${backup ? `; the previous file is kept as ${backup}` : ''}\n${environmentNote()}`);
}

/** Where the hooks find their hub and token, and how to check the wiring: the last words of install. */
function environmentNote(): string {
  const kept = readUserConfig(process.env);
  if (kept && !process.env.SESSION_HUB_URL && !process.env.SESSION_HUB_TOKEN) {
    return `\nThe hooks send to ${kept.url} with the token kept in ${userConfigPath(process.env)} (session-hub login).\nCheck after the agent's next hook: session-hub hook status.\n`;
  }
  const url = process.env.SESSION_HUB_URL;
  const here = (set: boolean, shown?: string) => (set ? `set here${shown ? ` (${shown})` : ''}` : 'NOT set in this shell');
  return [
    '',
    'The hooks need the hub and an agent token: `session-hub login <url> --token <agent token>` keeps them for you, or export',
    `  SESSION_HUB_URL    the hub, e.g. http://127.0.0.1:3737 — ${here(Boolean(url), url)}`,
    `  SESSION_HUB_TOKEN  an agent token (session-hub token create --role agent) — ${here(Boolean(process.env.SESSION_HUB_TOKEN))}`,
    'Check after the agent\'s next hook: session-hub hook status (a "last delivery" for the hub; a refused token names its fix).',
    '',
  ].join('\n');
}

function retry(argv: string[]): Promise<void> | void {
  const { values } = parseArgs({ args: argv, options: { help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    process.stdout.write(`${HOOK_HELP}\n`);
    return;
  }
  const target = targetOf(process.env);
  if (target === undefined) {
    process.stderr.write('session-hub hook retry-refused: set SESSION_HUB_URL and SESSION_HUB_TOKEN (the fixed token) first: the events are sent to that hub with that token\n');
    process.exitCode = 2;
    return;
  }
  return retryRefused(defaultSpoolDir(process.env), target).then((report) => {
    const lines: string[] = [];
    for (const m of report.moved) lines.push(`put back ${m.refused} refused and ${m.waiting} waiting ${m.flavor} event(s) from ${m.from}`);
    if (report.moved.length === 0) lines.push('nothing to put back: no event refused for its token, none written with no hub set');
    for (const d of report.delivered) {
      const r = d.report;
      const how = r.refused ? `refused again: ${r.refused.message}` : r.remaining > 0 ? `${r.remaining} left for the drainer or the next hook (${r.stoppedBy ?? ''})` : 'all delivered';
      lines.push(`${d.flavor}: sent ${r.delivered} event(s); ${how}`, ...r.notes);
    }
    for (const left of report.left) lines.push(`left: ${left}`);
    process.stdout.write(`${lines.join('\n')}\n`);
    process.exitCode = report.delivered.some((d) => d.report.refused || d.report.remaining > 0) ? 1 : 0;
  });
}

function status(argv: string[]): void {
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    process.stdout.write(`${HOOK_HELP}\n`);
    return;
  }
  const report = spoolStatus(defaultSpoolDir(process.env));
  if (values.json) process.stdout.write(`${JSON.stringify({ spoolDir: report.dir, ...report }, null, 2)}\n`);
  else process.stdout.write(`${formatSpoolStatus(report).join('\n')}\n`);
  process.exitCode = needsAttention(report) > 0 ? 1 : 0;
}

export async function hookCommand(argv: string[]): Promise<void> {
  const [first, ...rest] = argv;
  if (first === 'install') return install(rest);
  // status, retry-refused and the bridge: the hub and token `login` kept, where none is exported
  applyUserConfig(process.env);
  if (first === 'status') return status(rest);
  if (first === 'retry-refused') return retry(rest);
  if (first === undefined || first === '--help' || first === '-h') {
    process.stdout.write(`${HOOK_HELP}\n`);
    if (first === undefined) process.exitCode = 2;
    return;
  }
  return runBridgeCli(argv);
}
