import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FLAVORS, getFlavor } from '../../shared/flavors.js';
import { isObjectRecord } from '../../shared/protocol/json.js';
import { runBridgeCli } from '../hook/bridge.js';
import { buildHooksBlock, hookCommandFor, mergeHooks } from '../hook/install.js';
import { DEFAULT_HOOK_BUDGET_MS } from '../hook/run-hook.js';
import { formatSpoolStatus, needsAttention, spoolStatus } from '../hook/status.js';
import { atomicWrite, defaultSpoolDir } from '../hook/spool.js';

/** The bundled bridge (npm run build): dist/hook-bridge.mjs, beside dist/hub/. */
const BRIDGE_BUNDLE = fileURLToPath(new URL('../../hook-bridge.mjs', import.meta.url));

export const HOOK_HELP = `session-hub hook <flavor>            (reads one hook payload on stdin)
session-hub hook install <flavor> [--write] [--file PATH] [--command CMD]
session-hub hook status [--json]

The agent hook bridge. Called by the agent for each hook event, it writes the payload to its spool
(SESSION_HUB_SPOOL_DIR, default ~/.session-hub), then sends the spool to SESSION_HUB_URL's
POST /api/hooks with SESSION_HUB_TOKEN (a runner token); the hub maps it through the flavor registry.
When the hub is away a detached drainer retries in the background (SESSION_HUB_DRAIN_FOR_MS, default
30 min). It always exits 0 and gives up after about ${DEFAULT_HOOK_BUDGET_MS / 1000} s (SESSION_HUB_HOOK_BUDGET_MS).

install prints the agent's hook configuration (async hooks where the agent allows them); --write
merges it into the settings file (default: the flavor's own, e.g. .claude/settings.json), keeping
every other setting and hook and replacing this bridge's earlier hooks. The command runs the bundled
bridge directly: node ${BRIDGE_BUNDLE} <flavor>.

status prints, per flavor, the events spooled per session, the events the hub refused, the last
error and the drainer's state.

Flavors: ${[...FLAVORS.keys()].join(', ')}`;

async function install(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { write: { type: 'boolean' }, file: { type: 'string' }, command: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const flavorId = positionals[0];
  if (values.help || flavorId === undefined) {
    process.stdout.write(`${HOOK_HELP}\n`);
    if (flavorId === undefined && !values.help) process.exitCode = 2;
    return;
  }
  const flavor = getFlavor(flavorId);
  if (!flavor) {
    process.stderr.write(`session-hub hook install: unknown flavor "${flavorId}"\n`);
    process.exitCode = 2;
    return;
  }
  if (values.command === undefined && !existsSync(BRIDGE_BUNDLE)) {
    process.stderr.write(`session-hub hook install: ${BRIDGE_BUNDLE} is missing; run "npm run build" first (or pass --command)\n`);
    process.exitCode = 1;
    return;
  }
  const command = hookCommandFor(flavor.id, { base: values.command, bundle: BRIDGE_BUNDLE });
  const block = buildHooksBlock(flavor, command);
  if (!values.write) {
    if (!flavor.hookConfig) process.stdout.write(`# ${flavor.displayName}: run "${command}" with the payload on stdin for these hook events:\n`);
    process.stdout.write(`${JSON.stringify({ hooks: block }, null, 2)}\n`);
    return;
  }
  const target = values.file ?? flavor.hookConfig?.file;
  if (!target) {
    process.stderr.write(`session-hub hook install: no known settings file for ${flavor.displayName}; pass --file or configure by hand (run without --write)\n`);
    process.exitCode = 2;
    return;
  }
  const file = resolve(target);
  let settings: Record<string, unknown> = {};
  if (existsSync(file)) {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (!isObjectRecord(parsed)) throw new Error(`${file} does not hold a JSON object`);
    settings = parsed;
  }
  const merged = mergeHooks(settings, block, flavor.id);
  if (merged.added.length === 0) {
    process.stdout.write(`${file}: already set up, nothing changed\n`);
    return;
  }
  mkdirSync(dirname(file), { recursive: true });
  atomicWrite(file, `${JSON.stringify(merged.settings, null, 2)}\n`);
  process.stdout.write(`${file}: added ${merged.added.join(', ')}\n`);
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
