/**
 * Which process the agent keeper takes for the agent (issue 46.3): real process chains, as an agent
 * runs its hooks, with the hook a node process that asks `agentPidOfHook` (the compiled bridge code)
 * with the registry's Claude Code `processNames`. The agent is found by its program, through a
 * shell and a wrapper that stays between (npx, a person's script); a program named otherwise is
 * never taken for it, however near.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { getFlavor } from '../../shared/flavors.js';

const AGENT_WATCH = pathToFileURL(resolve(import.meta.dirname, '../../dist/hub/hook/agent-watch.js')).href;
const NAMES = getFlavor('claude')!.hookConfig!.agentKeeper!.processNames;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** A shell script that runs `$HOOK` below `$LEVELS` more shells of itself (a trailing `true` stops each exec'ing its last command). */
const LEVELS_SCRIPT = 'if [ "$LEVELS" -gt 0 ]; then LEVELS=$((LEVELS - 1)) sh "$0"; true; else sh -c "$HOOK"; true; fi\n';

/**
 * Runs `chain`: an agent that prints its own pid and runs the command it is given, which runs the
 * hook under shells (`LEVELS` more, then `sh -c`) and a node wrapper (npx's shape: a node process
 * that runs the command and waits); answers the agent's pid and what the hook found.
 */
async function agentAndFound(chain: (command: string) => string): Promise<{ agent: number; found: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'session-hub-agent-of-hook-'));
  dirs.push(dir);
  const hook = join(dir, 'hook.mjs');
  writeFileSync(hook, `const { agentPidOfHook } = await import(${JSON.stringify(AGENT_WATCH)});\nconsole.log('found ' + (agentPidOfHook(${JSON.stringify(NAMES)}) ?? 'none'));\n`);
  const wrapper = join(dir, 'wrapper.mjs');
  writeFileSync(wrapper, `import { spawnSync } from 'node:child_process';\nspawnSync(process.execPath, [${JSON.stringify(hook)}], { stdio: 'inherit' });\n`);
  writeFileSync(join(dir, 'levels.sh'), LEVELS_SCRIPT);
  const hookCommand = `${quote(process.execPath)} ${quote(wrapper)}`;
  const child = spawn('bash', ['-c', chain(`sh ${quote(join(dir, 'levels.sh'))}`)], { cwd: dir, env: { ...process.env, HOOK: hookCommand, LEVELS: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise((resolveClose) => child.once('close', resolveClose));
  const agent = /agent (\d+)/.exec(out)?.[1];
  const found = /found (\w+)/.exec(out)?.[1];
  if (agent === undefined || found === undefined) throw new Error(`the chain printed:\n${out}`);
  return { agent: Number(agent), found };
}

/** An agent process named `argv0` (bash under that name) printing its pid, then running `hook` below `levels` more shells. */
const agentNamed = (argv0: string, levels = 0) => (hook: string) => `exec -a ${quote(argv0)} bash -c ${quote(`echo agent $$; LEVELS=${levels} ${hook}; true`)}`;

describe('the agent of a hook, found by its program', () => {
  it.each([
    ['claude', 'claude'],
    ['its full path', '/home/someone/.local/bin/claude'],
    ['the npm package\'s native binary', '/usr/lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe'],
  ])('an agent running as %s, through a shell and a wrapper: the agent', async (_, argv0) => {
    const { agent, found } = await agentAndFound(agentNamed(argv0));
    expect(found).toBe(String(agent));
  });

  it('an agent whose program node runs (a script named claude): the agent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'session-hub-agent-script-'));
    dirs.push(dir);
    const script = join(dir, 'claude');
    writeFileSync(script, `const { spawnSync } = require('node:child_process');\nconsole.log('agent ' + process.pid);\nspawnSync('sh', ['-c', process.argv[2]], { stdio: 'inherit' });\n`);
    chmodSync(script, 0o755);
    const { agent, found } = await agentAndFound((levels) => `${quote(process.execPath)} ${quote(script)} ${quote(levels)}; true`);
    expect(found).toBe(String(agent));
  });

  it('no ancestor runs the agent (a wrapper or a shell nearest, named otherwise): none, never a guess', async () => {
    // all of the levels the search looks at are this chain's (hook, wrapper, shells), whatever runs the tests
    const { found } = await agentAndFound(agentNamed('npx', 8));
    expect(found).toBe('none');
  });
});
