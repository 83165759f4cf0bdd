/**
 * Hosts the plugin `hook install opencode` writes, as OpenCode loads it:
 * - `loadOpencodePlugin`: in this test process, its hooks to call; the process-exit handler it
 *   registers is taken off the process (a test worker's own exit must never run it);
 * - `runOpencodePluginProcess`: in a node process of its own that calls the given hooks, then exits
 *   at once (as `opencode run` does after its session.idle), so the plugin's exit handler runs for real.
 */
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';

type Hooks = Record<string, (...args: unknown[]) => Promise<void>>;

export async function loadOpencodePlugin(file: string, context: object): Promise<Hooks> {
  const before = new Set(process.listeners('exit'));
  const { SessionHub } = (await import(pathToFileURL(file).href)) as { SessionHub: (ctx: object) => Promise<Hooks> };
  const hooks = await SessionHub(context);
  for (const listener of process.listeners('exit')) if (!before.has(listener)) process.off('exit', listener);
  return hooks;
}

const HOST = `
const [file, directory, calls] = process.argv.slice(1);
const { SessionHub } = await import(file);
const hooks = await SessionHub({ directory });
for (const call of JSON.parse(calls)) await hooks[call.hook](...call.args);
process.exit(0);`;

export function runOpencodePluginProcess(file: string, directory: string, calls: { hook: string; args: unknown[] }[], env: Record<string, string>): Promise<number | null> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', HOST, pathToFileURL(file).href, directory, JSON.stringify(calls)], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, stdio: 'ignore' });
  return new Promise((done) => child.once('close', (code) => done(code)));
}
