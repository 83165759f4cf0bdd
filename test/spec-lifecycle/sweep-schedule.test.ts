/**
 * Spec section 9: "A sweep runs every minute (configurable) and at boot", "a turn open for more than
 * 5 minutes since it opened", "A hub restart never archives or ends a live session by itself".
 * In-process hubs on one data directory and one ManualClock, so the outage is as long as we say.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import { connectRunner, startSession, waitFor } from '../helpers/clients.js';
import { closeTestHubsAfterEach, startTestHub } from '../helpers/hub.js';
import { expectTokenNeverRemoved, fetchSession, fetchTurns } from '../lifecycle/http.js';

closeTestHubsAfterEach();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('spec 9: when the sweep runs', () => {
  it('at boot, before the hub answers: a turn left open over the outage is timed out, the live run is not ended', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'spec-boot-sweep-'));
    dirs.push(dataDir);
    const clock = new ManualClock(1_700_000_000_000);
    const first = await startTestHub({ dataDir, clock });
    const runner = await connectRunner(first.url, first.tokens.runner);
    const session = await startSession(runner);
    const turn = await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'long job' });
    expect(turn.ok).toBe(true);
    await first.close();
    runner.disconnect();

    // an outage longer than the turn timeout, the alive timeout and the run grace together
    const config = first.deps.config;
    clock.advance(config.turnTimeoutMs + config.aliveTimeoutMs + config.runGraceMs + 1);
    const second = await startTestHub({ dataDir, clock });

    // no sweepNow: the boot sweep already ran
    expect((await fetchTurns(second, session.sid)).map((t) => [t.status, t.closedAt])).toEqual([['timeout', clock.now()]]);
    const after = await fetchSession(second, session.sid);
    expect(after.currentTurn).toBeNull();
    expect(after.lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });

    // its grace counts from this hub's start
    clock.advance(config.runGraceMs - 1);
    await second.sweepNow();
    expect((await fetchSession(second, session.sid)).lifecycle.state).toBe('running');
    clock.advance(1);
    await second.sweepNow();
    expect((await fetchSession(second, session.sid)).lifecycle).toMatchObject({ state: 'ended', reason: 'runner_lost', by: 'hub', lastRun: { status: 'interrupted' } });
    await expectTokenNeverRemoved(second, session.sid, 'claudeSessionId', 'claude-abc');
  });

  it('on its own, at the configured interval (no sweepNow)', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const hub = await startTestHub({ clock, config: { sweepMs: 20 } });
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner);
    await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'x' });
    clock.advance(hub.deps.config.turnTimeoutMs + 1);
    await waitFor(async () => (await fetchTurns(hub, session.sid))[0]?.status === 'timeout', 5000, 'a timer sweep');
  });
});

describe('spec 9 (revised): the turn timeout counts from the turn\'s latest activity', () => {
  it('tool activity on the turn postpones it; exactly the timeout after it is not "more than"', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const hub = await startTestHub({ clock });
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner);
    await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'busy' });
    const timeout = hub.deps.config.turnTimeoutMs;
    clock.advance(timeout - 1000);
    expect((await runner.emitWithAck('tool-use', { sid: session.sid, tool: 'Bash', input: 'make' })).ok).toBe(true);
    clock.advance(1001);
    expect((await hub.sweepNow()).turnsTimedOut).toBe(0); // past the timeout since the prompt, not since the tool
    clock.advance(timeout - 1001);
    expect((await hub.sweepNow()).turnsTimedOut).toBe(0); // exactly the timeout after the tool
    clock.advance(1);
    expect((await hub.sweepNow()).turnsTimedOut).toBe(1);
    expect((await fetchTurns(hub, session.sid)).map((t) => [t.status, t.activityCount])).toEqual([['timeout', 1]]);
  });
});
