import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import { runWrite } from '../../hub/services/changes.js';
import { connectRunner, startSession, waitFor, type RunnerSocket } from '../helpers/clients.js';
import { closeTestHubsAfterEach, startTestHub, type TestHub } from '../helpers/hub.js';

closeTestHubsAfterEach();

interface Listed {
  sid: string;
  tag: string;
  presence: { active: boolean };
  lastRun: { status: string } | null;
}

async function listSessions(hub: TestHub): Promise<Listed[]> {
  const response = await fetch(`${hub.url}/api/sessions`, { headers: { authorization: `Bearer ${hub.tokens.dashboard}` } });
  return ((await response.json()) as { sessions: Listed[] }).sessions;
}

/**
 * Sends `send` on a fresh runner socket and drops the socket while that write is still committing
 * (a real unit of work is held open meanwhile), so the hub handles the disconnect before the write's
 * own handler resumes.
 */
async function dropMidWrite(hub: TestHub, send: (runner: RunnerSocket) => void): Promise<void> {
  const connectedRunners = async () => /session_hub_connected_clients\{kind="runner"\} (\d+)/.exec(await (await fetch(`${hub.url}/metrics`)).text())![1];
  let release!: () => void;
  const held = runWrite(hub.deps, () => new Promise<void>((resolve) => (release = resolve)));
  const runner = await connectRunner(hub.url, hub.tokens.runner);
  send(runner);
  // packets are handled in order: once this unknown event is answered, the write is in flight
  await runner.timeout(3000).emitWithAck('no-such-event' as 'session-alive', {} as never).catch(() => undefined);
  runner.disconnect();
  await waitFor(async () => (await connectedRunners()) === '0', 3000, 'the hub to see the disconnect');
  release();
  await held;
}

/**
 * Many short-lived connections: a runner that drops while its session-start or session-join is still
 * committing must not leave the socket bound to the session. Otherwise the session stays active, held
 * by a socket that is gone, and its run never starts its grace, so it never ends.
 */
describe('a runner that disconnects while its write commits', () => {
  it('session-start: the session goes inactive and its run ends after the grace', async () => {
    const clock = new ManualClock(1_000_000);
    const hub = await startTestHub({ clock, config: { runGraceMs: 1000 } });
    await dropMidWrite(hub, (runner) =>
      runner.emit('session-start', { tag: 'dropped-mid-start', flavor: 'claude', source: 'startup', metadata: { path: '/p' } }, () => {}),
    );
    const find = async () => (await listSessions(hub)).find((s) => s.tag === 'dropped-mid-start');
    await waitFor(async () => (await find())?.presence.active === false, 3000, 'the session to go inactive');

    clock.advance(1001);
    await hub.sweepNow();
    expect((await find())!.lastRun?.status).not.toBe('running');
  });

  it('session-join: the session goes inactive again', async () => {
    const hub = await startTestHub();
    const first = await connectRunner(hub.url, hub.tokens.runner);
    const { sid } = await startSession(first, { tag: 'dropped-mid-join' });
    first.disconnect();
    const find = async () => (await listSessions(hub)).find((s) => s.sid === sid)!;
    await waitFor(async () => (await find()).presence.active === false, 3000, 'the first runner to be lost');

    await dropMidWrite(hub, (runner) => runner.emit('session-join', { sid }, () => {}));
    await waitFor(async () => (await find()).presence.active === false, 3000, 'the session to go inactive after the dropped join');
  });
});
