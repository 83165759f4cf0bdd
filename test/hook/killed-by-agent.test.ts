/**
 * A hook process the agent kills (SIGTERM: Claude Code does to async hooks still running when
 * `claude -p` exits, and to a hook past its timeout), run as the real bundled bridge against a real
 * hub: killed once it has read its payload but before it could spool it (here: the spool lock is
 * held by a live process), the event is still written and a drainer delivers it; killed before it
 * read any payload, the loss is kept among the calls that sent nothing, which `hook status` shows
 * (exit 1) with the fix.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { targetDir } from '../../hub/hook/spool-target.js';
import type { TurnWithActivity } from '../../shared/protocol/session.js';
import { runCli } from '../helpers/cli.js';
import { fixture, useBridgeHub } from './run-cli.js';

const BRIDGE = resolve(import.meta.dirname, '../../dist/hook-bridge.cjs');
let spoolDir = '';
const { env, get, sessionByTag } = useBridgeHub((started) => (spoolDir = started.spoolDir));
const session = fixture('claude-session.json');

/** A bridge process as the agent starts it; `stdin` written (and closed) only when given. */
function startHook(stdin: string | undefined, extraEnv: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BRIDGE, 'claude'], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env(), ...extraEnv }, stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  if (stdin !== undefined) child.stdin.end(stdin);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) => child.once('exit', (code, signal) => resolveExit({ code, signal })));
  return { child, exited, stderr: () => stderr };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a hook process the agent kills', () => {
  it('killed after reading its payload, before spooling it: the event is written anyway and a drainer delivers it', async () => {
    // another live process holds the spool lock: the hook waits for it (up to half its budget, 15 s
    // here), long after node is up and the payload read, however slow the machine
    const dir = targetDir(spoolDir, { url: env().SESSION_HUB_URL!, token: env().SESSION_HUB_TOKEN! });
    mkdirSync(dir, { recursive: true });
    const lock = join(dir, 'spool-claude.lock');
    writeFileSync(lock, String(process.pid));
    const hook = startHook(JSON.stringify(session[0]), { SESSION_HUB_HOOK_BUDGET_MS: '30000' });
    await sleep(3000);
    expect(hook.child.exitCode).toBeNull(); // still waiting for the lock
    hook.child.kill('SIGTERM');
    expect(await hook.exited).toEqual({ code: 0, signal: null });
    // the event was written as a part file, for the next holder of the lock
    expect(readdirSync(dir).filter((name) => name.startsWith('spool-claude.part-'))).toHaveLength(1);
    rmSync(lock);
    const tag = session[0]!.session_id as string;
    await expect.poll(async () => (await sessionByTag(tag).catch(() => undefined))?.lifecycle.state, { timeout: 20_000, interval: 250 }).toBe('running');
    const turns = await get<TurnWithActivity[]>(`/api/sessions/${(await sessionByTag(tag)).sid}/turns`);
    expect(turns).toEqual([]);
  });

  it('killed before it read any payload: the loss is noted, and hook status reports it with the fix', async () => {
    // stdin stays open (the agent is still writing it); node is up well within 2.5 s, and the bridge waits 5 s for stdin
    const hook = startHook(undefined);
    await sleep(2500);
    hook.child.kill('SIGTERM');
    expect(await hook.exited).toEqual({ code: 0, signal: null });
    const status = await runCli(['hook', 'status'], { env: env() });
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/hook calls that sent nothing:\n.* claude: killed by the agent \(SIGTERM\) before it read its payload: the event is lost\. .*run `session-hub hook install claude --write` again/);
    const json = JSON.parse((await runCli(['hook', 'status', '--json'], { env: env() })).stdout) as { badCalls: { flavor: string; problem: string }[]; badCallsPresent: boolean };
    expect(json.badCalls).toMatchObject([{ flavor: 'claude', problem: expect.stringMatching(/^killed by the agent/) }]);
    expect(json.badCallsPresent).toBe(true);
  });
});
