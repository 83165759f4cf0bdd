import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/clients.js';
import { getSession, runnerOn, startTwoHubs, sweepsRun, twoHubsAfterEach } from './two-hubs.js';

twoHubsAfterEach();

describe('one session with runners on two hub processes', () => {
  it('a runner leaving one process does not end the run the runner on the other process still drives; the last one leaving does', { timeout: 60_000 }, async () => {
    const { a, b, tokens } = await startTwoHubs({
      SESSION_HUB_HEARTBEAT_MS: '100',
      SESSION_HUB_SWEEP_MS: '50',
      SESSION_HUB_RUN_GRACE_MS: '300',
    });
    const driver = await runnerOn(a, tokens.runner);
    const { session } = await driver.startSession({ tag: 'shared', flavor: 'claude', source: 'startup', metadata: { path: '/work/project' } });
    const helper = await runnerOn(b, tokens.runner);
    await helper.joinSession(session.sid);

    // the runner on B leaves; A still holds the session's runner
    await helper.close();
    const sweeps = async () => (await sweepsRun(a)) + (await sweepsRun(b));
    const before = await sweeps();
    // long past the grace, with many sweeps on both processes
    await waitFor(async () => (await sweeps()) >= before + 20, 20_000, 'twenty sweeps in the cluster');
    for (const hub of [a, b]) {
      const stored = await getSession(hub, session.sid, tokens.dashboard);
      expect(stored.lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });
      expect(stored.presence.active).toBe(true);
    }

    // the last runner leaves: now the run is lost, and ends after the grace
    await driver.close();
    await waitFor(async () => (await getSession(b, session.sid, tokens.dashboard)).lifecycle.state === 'ended', 20_000, 'the run to end');
    expect((await getSession(b, session.sid, tokens.dashboard)).lifecycle).toMatchObject({
      state: 'ended',
      reason: 'runner_lost',
      lastRun: { status: 'interrupted', reason: 'runner_lost' },
    });
  });
});
