/**
 * Every way an agent's hook reaches the bridge delivers: the bundle `hook install` writes
 * (dist/hook-bridge.cjs), the installed CLI (`bin/session-hub.js hook claude`), and the ESM file
 * hooks installed by earlier versions still name (dist/hook-bridge.mjs); a reinstall replaces such
 * an earlier command instead of adding a second one.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { fixture, useBridgeHub } from './run-cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const { env, sessionByTag } = useBridgeHub();
const start = fixture('claude-session.json')[0]!;

function runHookProcess(args: string[], payload: Record<string, unknown>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env() }, stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(JSON.stringify(payload));
  return new Promise((resolveExit) => child.once('exit', (code) => resolveExit({ code, stderr })));
}

describe('the ways into the bridge', () => {
  it.each([
    ['the bundle hook install writes', ['dist/hook-bridge.cjs', 'claude']],
    ['the installed CLI', ['bin/session-hub.js', 'hook', 'claude']],
    ['the ESM file earlier installs name', ['dist/hook-bridge.mjs', 'claude']],
  ])('%s delivers the event to the hub', async (_name, args) => {
    const tag = `entry-${args[0]!.replace(/\W/g, '-')}`;
    const run = await runHookProcess([join(ROOT, args[0]!), ...args.slice(1)], { ...start, session_id: tag });
    expect(run).toEqual({ code: 0, stderr: '' });
    const session = await sessionByTag(tag);
    expect(session.flavor).toBe('claude');
  });
});

describe('hook install over an earlier install', () => {
  it('replaces a command naming dist/hook-bridge.mjs with the bundle, never doubling it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'session-hub-reinstall-'));
    const file = join(dir, '.claude', 'settings.json');
    mkdirSync(join(dir, '.claude'));
    const earlier = { type: 'command', command: 'node "/opt/session-hub/dist/hook-bridge.mjs" claude', async: true };
    writeFileSync(file, JSON.stringify({ hooks: { PostToolUse: [{ matcher: '*', hooks: [earlier] }] } }));
    try {
      expect((await runCli(['hook', 'install', 'claude', '--write', '--file', file])).code).toBe(0);
      const { hooks } = JSON.parse(readFileSync(file, 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
      expect(hooks.PostToolUse!.map((entry) => entry.hooks[0]!.command)).toEqual([`node ${JSON.stringify(join(ROOT, 'dist/hook-bridge.cjs'))} claude`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
