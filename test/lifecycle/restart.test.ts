/**
 * The real hub process with short sweep intervals set by environment: restarts with and without the
 * runner coming back, and a runner that vanishes without an end event. No scenario may lose a token.
 */
import { describe, expect, it } from 'vitest';
import { connectRunner, startSession } from '../helpers/clients.js';
import { spawnHub, stopHubsAfterEach, type HubProcess } from '../helpers/hub-process.js';
import { expectTokenNeverRemoved, fetchSession, fetchTurns } from './http.js';

const GRACE_MS = 1500;
const ENV = {
  SESSION_HUB_SWEEP_MS: '100',
  SESSION_HUB_RUN_GRACE_MS: String(GRACE_MS),
  SESSION_HUB_ALIVE_TIMEOUT_MS: '60000',
  SESSION_HUB_IDLE_MS: '3600000',
};

const spawn = (dataDir?: string): Promise<HubProcess> => spawnHub({ env: ENV, ...(dataDir ? { dataDir } : {}) });
stopHubsAfterEach();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A live claude session mid-turn on a fresh hub process. */
async function liveSession() {
  const hub = await spawn();
  const runner = await connectRunner(hub.url, hub.tokens.runner);
  const session = await startSession(runner, { metadata: { path: '/p', claudeSessionId: 'claude-live' } });
  await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'working' });
  return { hub, runner, session };
}

async function pollSession(hub: HubProcess, sid: string, predicate: (s: Awaited<ReturnType<typeof fetchSession>>) => boolean, what: string) {
  let last: Awaited<ReturnType<typeof fetchSession>> | undefined;
  const deadline = Date.now() + GRACE_MS * 6;
  while (Date.now() < deadline) {
    last = await fetchSession(hub, sid);
    if (predicate(last)) return last;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last?.lifecycle)}`);
}

describe('restarts of the real hub process', () => {
  it('a runner that rejoins within the grace after a crash keeps its session and run running', async () => {
    const { hub, runner, session } = await liveSession();
    runner.disconnect();
    await hub.kill9();

    const restarted = await spawn(hub.dataDir);
    const back = await connectRunner(restarted.url, restarted.tokens.runner);
    const ack = await back.emitWithAck('session-join', { sid: session.sid });
    expect(ack.ok && ack.session.lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });

    // well past the grace, with many sweeps in between
    await sleep(GRACE_MS * 2);
    const after = await fetchSession(restarted, session.sid);
    expect(after.lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running', endedAt: null } });
    expect(after.presence.active).toBe(true);
    expect(after.currentTurn).toMatchObject({ prompt: 'working', status: 'open' });
    await expectTokenNeverRemoved(restarted, session.sid, 'claudeSessionId', 'claude-live');
  });

  it('without the runner coming back, the run ends interrupted and the session ended (never archived), counting from the restart', async () => {
    const { hub, runner, session } = await liveSession();
    runner.disconnect();
    await hub.stop();
    // down for longer than the grace: the grace of a run left over from before counts from the new start
    await sleep(GRACE_MS + 500);

    const restarted = await spawn(hub.dataDir);
    expect((await fetchSession(restarted, session.sid)).lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });
    const after = await pollSession(restarted, session.sid, (s) => s.lifecycle.state !== 'running', 'the lost run to end');
    expect(after.lifecycle).toMatchObject({ state: 'ended', reason: 'runner_lost', by: 'hub', lastRun: { status: 'interrupted', reason: 'runner_lost' } });
    expect(after.resume).toMatchObject({ available: true, safe: false, reason: 'last_run_interrupted' });
    expect((await fetchTurns(restarted, session.sid)).map((t) => t.status)).toEqual(['aborted']);
    await expectTokenNeverRemoved(restarted, session.sid, 'claudeSessionId', 'claude-live');

    // still ended after more sweeps, and after one more restart
    await sleep(300);
    expect((await fetchSession(restarted, session.sid)).lifecycle.state).toBe('ended');
    await restarted.kill9();
    const again = await spawn(hub.dataDir);
    await sleep(300);
    expect((await fetchSession(again, session.sid)).lifecycle).toMatchObject({ state: 'ended', reason: 'runner_lost' });
    await expectTokenNeverRemoved(again, session.sid, 'claudeSessionId', 'claude-live');
  });

  it('an unclean runner exit with no end event: inactive at once, then ended / runner_lost after the grace', async () => {
    const { hub, runner, session } = await liveSession();
    runner.disconnect();
    await pollSession(hub, session.sid, (s) => !s.presence.active, 'inactive');
    expect((await fetchSession(hub, session.sid)).lifecycle.state).toBe('running');
    const after = await pollSession(hub, session.sid, (s) => s.lifecycle.state === 'ended', 'runner_lost');
    expect(after.lifecycle).toMatchObject({ reason: 'runner_lost', by: 'hub', lastRun: { status: 'interrupted' } });
    await expectTokenNeverRemoved(hub, session.sid, 'claudeSessionId', 'claude-live');
  });
});

describe('a runner process whose socket drops and comes back', () => {
  it('rejoining with session-join within the grace keeps the run running past the grace', async () => {
    const { hub, runner, session } = await liveSession();
    runner.disconnect();
    await pollSession(hub, session.sid, (s) => !s.presence.active, 'inactive');
    const back = await connectRunner(hub.url, hub.tokens.runner);
    await back.emitWithAck('session-join', { sid: session.sid });
    await sleep(GRACE_MS + 500);
    expect((await fetchSession(hub, session.sid)).lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });
    await expectTokenNeverRemoved(hub, session.sid, 'claudeSessionId', 'claude-live');
  });
});
