/**
 * The hook bridge's entry: `session-hub hook <flavor>` (the agent runs it once per hook event, the
 * payload on stdin, or as the last argument where the flavor declares so), `--drain <flavor>` (the detached drainer)
 * and `--keep <flavor> <tag> <agentPid>` (the agent keeper: ./agent-keeper.ts). `npm run build` bundles it with
 * esbuild into dist/hook-bridge.cjs, one CommonJS file loading only node built-ins (no ESM loader
 * at start-up), which the installed hook command runs directly (bin/session-hub.js dispatches `hook <flavor>` to it too).
 */
import { RUNNER_DRIVEN_ENV } from '../../shared/runner-driven.js';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runKeeper } from './agent-keeper.js';
import { runDrainer, spawnDrainer } from './drainer.js';
import { recordBadCall } from './bad-calls.js';
import { DEFAULT_HOOK_BUDGET_MS, runHook } from './run-hook.js';
import { applyUserConfig } from './user-config.js';
import { runWake } from './wake-hook.js';
import { defaultSpoolDir, type Spool, type SpooledEvent } from './spool.js';

/**
 * The agent may kill a hook (SIGTERM: Claude Code does to async hooks still running when `claude
 * -p` exits, and to any hook past its timeout). Killed after the event was spooled: a drainer sends
 * it. Killed once the payload was read but before it was spooled: it is written as a part file
 * (one atomic write) and a drainer sends it. Killed before that: the event is lost, and kept among
 * the bad calls `hook status` shows. Then the process exits 0 at once.
 */
function onKill(flavor: string, firedAt: number, entry: string): { event(spool: Spool, event: Omit<SpooledEvent, 'seq'>): void; spooled(): void } {
  let held: { spool: Spool; event: Omit<SpooledEvent, 'seq'> } | undefined;
  let safe = false;
  process.once('SIGTERM', (signal) => {
    if (!safe && held) held.spool.writePart(held.event);
    else if (!safe) {
      recordBadCall(defaultSpoolDir(process.env), {
        at: firedAt,
        flavor,
        problem: `killed by the agent (${signal}) before it read its payload: the event is lost. Hooks written "async" by an earlier \`hook install\` are killed when a headless run ends: run \`session-hub hook install ${flavor} --write\` again`,
      });
    }
    const exit = () => process.exit(0);
    if (!safe && !held) return exit();
    spawnDrainer(entry, flavor, process.env).then(exit, exit);
  });
  return { event: (spool, event) => (held = { spool, event }), spooled: () => (safe = true) };
}

function readStdin(timeoutMs: number): Promise<string> {
  return new Promise((resolveText) => {
    let text = '';
    const done = () => {
      clearTimeout(timer);
      resolveText(text);
    };
    const timer = setTimeout(done, timeoutMs);
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => (text += chunk));
    process.stdin.on('end', done);
    process.stdin.on('error', done);
  });
}

export async function runBridgeCli(args: readonly string[]): Promise<void> {
  const [first, second] = args;
  // no exports needed where `session-hub login` kept the hub and token (exported variables win)
  applyUserConfig(process.env);
  if (first === '--drain' && second !== undefined) return runDrainer(second, process.env);
  if (first === '--keep' && second !== undefined && args[2] !== undefined) return runKeeper(second, args[2], Number(args[3]), process.env);
  // an agent `session-hub runner` drives: the runner reports it (each turn once), the hooks stay quiet
  if (process.env[RUNNER_DRIVEN_ENV] === '1') return;
  if (second === '--wake' && first !== undefined) {
    // a background waiter: it may run for minutes, and wakes the agent by its exit code
    const woken = await runWake(first, () => readStdin(5000), process.env);
    process.stderr.write(woken.stderr);
    process.exitCode = woken.exitCode;
    return;
  }
  if (first === undefined || first.startsWith('-')) {
    process.stderr.write('usage: session-hub hook <flavor> [--wake | --ask]   (the hook payload on stdin)\n');
    process.exitCode = 2;
    return;
  }
  // the hook process started when the agent fired the hook: that is the event's time
  // (process.uptime, not performance.timeOrigin: the `performance` global loads perf_hooks)
  const firedAt = Math.round(Date.now() - process.uptime() * 1000);
  const budget = Number(process.env.SESSION_HUB_HOOK_BUDGET_MS ?? DEFAULT_HOOK_BUDGET_MS);
  // once the event is spooled, whatever happens, the agent gets its hook back within the budget;
  // never before: a process starved of CPU (many async hooks at once) must not lose its event
  // (an approval hook: once the hub has it, within the bridge's approval bound instead)
  const kill = onKill(first, firedAt, import.meta.url);
  const onSpooled = (limitMs = budget) => {
    kill.spooled();
    setTimeout(() => process.exit(0), limitMs + 1500).unref();
  };
  try {
    // a payload passed as the last argument (Codex's notify: `hook codex <json>`) leaves stdin as it
    // is: it may be the user's terminal. Otherwise the timer only guards against a caller that never
    // closes stdin. `--ask` (install's entry for the tool calls that ask the person) is a flag, not a payload
    const ask = args.includes('--ask');
    const rest = args.filter((arg) => arg !== '--ask');
    const payload = rest.length > 1 ? rest.at(-1)! : await readStdin(5000);
    const outcome = await runHook(first, payload, process.env, { firedAt, entry: import.meta.url, onSpooled, onEvent: kill.event, ask });
    for (const error of outcome.errors) process.stderr.write(`session-hub hook: ${error}\n`);
    // stdout only carries JSON the agent reads (some agents feed plain stdout into the conversation)
    if (outcome.stdout) process.stdout.write(`${JSON.stringify(outcome.stdout)}\n`);
  } catch (error) {
    // never silent: what failed is kept among the bad calls `hook status` shows (issue 33.1)
    const problem = `the hook call failed before its event was safe, and it may be lost: ${error instanceof Error ? error.message : String(error)}`;
    recordBadCall(defaultSpoolDir(process.env), { at: firedAt, flavor: first, problem });
    process.stderr.write(`session-hub hook: ${problem}\n`);
  }
  process.exitCode = 0;
}

// run directly (the bundle, or a drainer started from this module): go
if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) void runBridgeCli(process.argv.slice(2));
