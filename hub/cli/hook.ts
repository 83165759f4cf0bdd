import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { FLAVORS, getFlavor } from '../../shared/flavors.js';
import { isObjectRecord } from '../../shared/protocol/json.js';
import { buildHooksBlock, hookCommandFor, mergeHooks } from '../hook/install.js';
import { DEFAULT_HOOK_BUDGET_MS, runHook } from '../hook/run-hook.js';
import { atomicWrite } from '../hook/spool.js';

export const HOOK_HELP = `session-hub hook <flavor>            (reads one hook payload on stdin)
session-hub hook install <flavor> [--write] [--file PATH] [--command CMD]

The agent hook bridge. Called by the agent for each hook event, it maps the payload through the
flavor registry to a hub event and sends it to SESSION_HUB_URL with SESSION_HUB_TOKEN (a runner
token). When the hub is away the event is kept in SESSION_HUB_SPOOL_DIR (default ~/.session-hub)
and delivered, in order, by the next call. It always exits 0 and gives up after about
${DEFAULT_HOOK_BUDGET_MS / 1000} s (SESSION_HUB_HOOK_BUDGET_MS), so it never holds the agent up.

install prints the agent's hook configuration; --write merges it into the settings file
(default: the flavor's own, e.g. .claude/settings.json), keeping every other setting and hook.

Flavors: ${[...FLAVORS.keys()].join(', ')}`;

function readStdin(timeoutMs: number): Promise<string> {
  return new Promise((resolveText) => {
    let text = '';
    const done = () => {
      clearTimeout(timer);
      resolveText(text);
    };
    // an agent always closes stdin; the timer only guards against a caller that does not
    const timer = setTimeout(done, timeoutMs);
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => (text += chunk));
    process.stdin.on('end', done);
    process.stdin.on('error', done);
  });
}

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
  const command = hookCommandFor(flavor.id, values.command);
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
  const merged = mergeHooks(settings, block);
  if (merged.added.length === 0) {
    process.stdout.write(`${file}: already set up, nothing changed\n`);
    return;
  }
  mkdirSync(dirname(file), { recursive: true });
  atomicWrite(file, `${JSON.stringify(merged.settings, null, 2)}\n`);
  process.stdout.write(`${file}: added ${merged.added.join(', ')}\n`);
}

export async function hookCommand(argv: string[]): Promise<void> {
  const [first, ...rest] = argv;
  if (first === 'install') return install(rest);
  if (first === undefined || first === '--help' || first === '-h') {
    process.stdout.write(`${HOOK_HELP}\n`);
    if (first === undefined) process.exitCode = 2;
    return;
  }
  const budget = Number(process.env.SESSION_HUB_HOOK_BUDGET_MS ?? DEFAULT_HOOK_BUDGET_MS);
  // whatever happens, the agent gets its hook back
  setTimeout(() => process.exit(0), budget + 1500).unref();
  try {
    const payload = await readStdin(Math.min(1000, budget));
    const outcome = await runHook(first, payload, process.env);
    // stdout stays empty: some agents feed a hook's stdout back into the conversation
    for (const error of outcome.errors) process.stderr.write(`session-hub hook: ${error}\n`);
    if (outcome.received === 'invalid') process.stderr.write(`session-hub hook: ${outcome.note}\n`);
  } catch (error) {
    process.stderr.write(`session-hub hook: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  process.exitCode = 0;
}
