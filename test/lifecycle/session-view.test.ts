/**
 * A session's display title and activity (issue 17), derived by the hub, sent in snapshots and kept
 * current in live updates: at every step the SDK's live map (DashboardClient, which only applies the
 * update bodies) shows what a fresh GET shows, for a socket runner (an SDK session) and for a
 * detached, hook-driven run.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import { DashboardClient } from '../../shared/client/dashboard-client.js';
import { closeAllClients, connectRunner, startSession, waitFor, type RunnerSocket } from '../helpers/clients.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { fetchSession } from './http.js';

let hub: TestHub;
let live: DashboardClient;
let clock: ManualClock;
afterEach(async () => {
  live?.close();
  closeAllClients();
  await hub?.close().catch(() => undefined);
});

async function watchedHub(): Promise<void> {
  clock = new ManualClock(1_700_000_000_000);
  hub = await startTestHub({ clock });
  live = await DashboardClient.connect({ url: hub.url, token: hub.tokens.dashboard });
  await live.subscribe();
}

/** The hub's answer and the live map agree on both derived fields, and they are as expected. */
async function expectView(sid: string, expected: { title: string; activity: string }): Promise<void> {
  const fetched = await fetchSession(hub, sid);
  expect({ title: fetched.title, activity: fetched.activity }, `GET /api/sessions/${sid}`).toEqual(expected);
  await waitFor(() => live.sessions.get(sid)?.activity === expected.activity && live.sessions.get(sid)?.title === expected.title, 3000, `live map shows ${JSON.stringify(expected)}`);
}

async function ok<T extends { ok: boolean }>(ack: Promise<T>): Promise<T> {
  const answer = await ack;
  if (!answer.ok) throw new Error(`refused: ${JSON.stringify(answer)}`);
  return answer;
}

describe('session title and activity', () => {
  it('an SDK session: project name, then its first prompt, then its metadata title; idle, working, idle, lost, and lost once the hub ends it', async () => {
    await watchedHub();
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner, { metadata: { path: '/home/ana/src/parser-kit', claudeSessionId: 'c-1' } });
    expect(session).toMatchObject({ title: 'parser-kit', activity: 'idle' });
    await expectView(session.sid, { title: 'parser-kit', activity: 'idle' });

    const long = `Fix the failing tests in the tokenizer ${'and keep going '.repeat(20)}`;
    await ok(runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: long }));
    const cut = (await fetchSession(hub, session.sid)).title;
    expect(cut.startsWith('Fix the failing tests in the tokenizer and keep going')).toBe(true);
    // cut at 200 characters (issue 22: at ~80 a wide screen showed a title cut short); the page fits it to its width
    expect(Array.from(cut)).toHaveLength(200);
    expect(cut.endsWith('…')).toBe(true);
    await expectView(session.sid, { title: cut, activity: 'working' });

    await ok(runner.emitWithAck('turn-stop', { sid: session.sid, response: 'Done.' }));
    await expectView(session.sid, { title: cut, activity: 'idle' });
    // the closed turn's prompt stays the last prompt, cut to 200 characters on one line
    const lastPrompt = (await fetchSession(hub, session.sid)).lastPrompt!;
    expect(lastPrompt.startsWith('Fix the failing tests in the tokenizer and keep going and keep going')).toBe(true);
    expect(Array.from(lastPrompt)).toHaveLength(200);
    expect(live.sessions.get(session.sid)?.lastPrompt).toBe(lastPrompt);
    // a later prompt does not rename the session, but is the last prompt
    await ok(runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'And the docs' }));
    await expectView(session.sid, { title: cut, activity: 'working' });
    expect((await fetchSession(hub, session.sid)).lastPrompt).toBe('And the docs');
    await waitFor(() => live.sessions.get(session.sid)?.lastPrompt === 'And the docs', 3000, 'live last prompt');

    expect(await runner.emitWithAck('update-metadata', { sid: session.sid, patch: { title: 'Fix the tests' }, expectedVersion: 1 })).toMatchObject({ result: 'success' });
    await expectView(session.sid, { title: 'Fix the tests', activity: 'working' });

    // the runner's socket goes away: the hub no longer hears from it
    runner.disconnect();
    await waitFor(async () => (await fetchSession(hub, session.sid)).presence.active === false, 3000, 'presence inactive');
    await expectView(session.sid, { title: 'Fix the tests', activity: 'lost' });
    // past the grace the hub ends the run as runner_lost: still lost, not a plain end
    clock.advance(hub.deps.config.runGraceMs + 1);
    await hub.sweepNow();
    expect((await fetchSession(hub, session.sid)).lifecycle).toMatchObject({ state: 'ended', reason: 'runner_lost' });
    await expectView(session.sid, { title: 'Fix the tests', activity: 'lost' });
  });

  it('a detached (hook-driven) run is heard while its run is live, with no socket: working, idle after a timed-out turn, lost when silent', async () => {
    await watchedHub();
    /** One short-lived socket per event, as the hook bridge does. */
    const hook = async <T>(fn: (runner: RunnerSocket) => Promise<T>): Promise<T> => {
      const runner = await connectRunner(hub.url, hub.tokens.runner);
      try {
        return await fn(runner);
      } finally {
        runner.disconnect();
      }
    };
    const tag = 'hooked-session';
    const start = () => hook((r) => startSession(r, { tag, detached: true, metadata: { path: '/home/ana/src/site' } }));
    const session = await start();
    await expectView(session.sid, { title: 'site', activity: 'idle' });

    await hook(async (r) => {
      await ok(r.emitWithAck('session-join', { sid: session.sid }));
      await ok(r.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'Add a dark mode' }));
    });
    // the socket is gone (presence inactive), yet the agent is at work
    await waitFor(async () => (await fetchSession(hub, session.sid)).presence.active === false, 3000, 'presence inactive');
    await expectView(session.sid, { title: 'Add a dark mode', activity: 'working' });

    // the sweep closes the turn after the turn timeout: the live map hears the turn closed and moves to idle
    clock.advance(hub.deps.config.turnTimeoutMs + 1);
    await hub.sweepNow();
    await expectView(session.sid, { title: 'Add a dark mode', activity: 'idle' });

    // no hook event for the idle window: the hub ends the run as runner_silent, and says lost
    clock.advance(hub.deps.config.idleMs + 1);
    await hub.sweepNow();
    expect((await fetchSession(hub, session.sid)).lifecycle).toMatchObject({ state: 'ended', reason: 'runner_silent' });
    await expectView(session.sid, { title: 'Add a dark mode', activity: 'lost' });

    // it comes back, then ends on its own: ended
    await start();
    await expectView(session.sid, { title: 'Add a dark mode', activity: 'idle' });
    await hook(async (r) => {
      await ok(r.emitWithAck('session-join', { sid: session.sid }));
      await ok(r.emitWithAck('session-end', { sid: session.sid, reason: 'prompt_input_exit' }));
    });
    await expectView(session.sid, { title: 'Add a dark mode', activity: 'ended' });
  });

  it('a summary object names the session; an archived session reads ended', async () => {
    await watchedHub();
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner, { metadata: { path: '/w/x', summary: { text: 'Refactor the store', updatedAt: 1 } } });
    await expectView(session.sid, { title: 'Refactor the store', activity: 'idle' });
    await ok(runner.emitWithAck('session-archive', { sid: session.sid, reason: 'done with it' }));
    await expectView(session.sid, { title: 'Refactor the store', activity: 'ended' });
  });
});
