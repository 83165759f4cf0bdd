/**
 * Async hooks run in parallel: 50 hook processes fired at once (as Claude Code fires async hooks)
 * each keep their event; the hub's turn holds every tool once, at the time its hook fired, listed
 * in firing order, and the turn closes after all of them.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TurnWithActivity } from '../../shared/protocol/session.js';
import type { TestHub } from '../helpers/hub.js';
import { fixture, sendHooks, useBridgeHub } from './run-cli.js';

// what `hook install` writes: node runs the bundled bridge directly
const BRIDGE = resolve(import.meta.dirname, '../../dist/hook-bridge.cjs');
const COUNT = 50;

let hub: TestHub;
const { env, get, sessionByTag } = useBridgeHub((started) => ({ hub } = started));
const claude = fixture('claude-session.json');
const tag = claude[0]!.session_id as string;

/** One hook process; resolves with the time it was started and the time it exited. */
function fire(payload: Record<string, unknown>, hookEnv: Record<string, string>): Promise<{ spawnedAt: number; exitedAt: number; code: number | null }> {
  const spawnedAt = Date.now();
  const child = spawn(process.execPath, [BRIDGE, 'claude'], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...hookEnv }, stdio: ['pipe', 'ignore', 'ignore'] });
  child.stdin.end(JSON.stringify(payload));
  return new Promise((resolveExit) => child.once('exit', (code) => resolveExit({ spawnedAt, exitedAt: Date.now(), code })));
}

describe(`${COUNT} hook processes at once`, () => {
  it('every tool once, at its firing time, in firing order; the turn closes after them', { timeout: 120_000 }, async () => {
    await sendHooks('claude', claude.slice(0, 2), env());
    const tool = claude[2]!;
    const runs = await Promise.all(Array.from({ length: COUNT }, (_, i) => fire({ ...tool, tool_use_id: `toolu_par_${i}`, tool_input: { n: i } }, env())));
    for (const run of runs) expect(run.code).toBe(0);
    await sendHooks('claude', [claude[5]!], env());

    const session = await sessionByTag(tag);
    const [turn, ...others] = await get<TurnWithActivity[]>(`/api/sessions/${session.sid}/turns`);
    expect(others).toHaveLength(0);
    expect(turn!.status).toBe('completed');
    const byId = new Map(turn!.activities.map((a) => [a.toolUseId, a]));
    expect(turn!.activities).toHaveLength(COUNT);
    expect(byId.size).toBe(COUNT);
    runs.forEach((run, i) => {
      // the time its hook process started: after it was spawned, before it exited (not when delivered)
      const at = byId.get(`toolu_par_${i}`)!.at;
      // (the bridge dates its start as wall clock less its monotonic uptime: on a loaded machine the
      // two were seen 38 ms apart, so a firing time is checked to within 100 ms of the spawn)
      expect(at).toBeGreaterThanOrEqual(run.spawnedAt - 100);
      expect(at).toBeLessThanOrEqual(run.exitedAt);
    });
    // listed in firing order, all within the turn
    const times = turn!.activities.map((a) => a.at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times[0]).toBeGreaterThanOrEqual(turn!.openedAt);
    expect(turn!.closedAt).toBeGreaterThanOrEqual(times[times.length - 1]!);
  });
});
