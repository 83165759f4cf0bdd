/**
 * A hook session's agent keeper (POST /api/hooks/agent, issue 34.2), on the hub, on both stores:
 * - `alive` keeps a detached run from ending: not after the alive window (SESSION_HUB_AGENT_ALIVE_MS)
 *   while the reports come, nor after the idle window that ends a run without a keeper;
 * - reports that stop: the sweep ends the run `agent_silent` once the window has passed since the
 *   last one (activity `lost`, a queued message still queued);
 * - `gone`: the run ends `agent_gone` at once; the next hook event reopens the session;
 * - a keeper names its agent's pid: the first process's late `gone` leaves the run of the agent
 *   resumed in a second process (the same session) alone;
 * - what the route refuses: a dashboard token, a body naming no session.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import type { HookAgentReportResponse } from '../../shared/protocol/hooks.js';
import { closeAllClients, connectRunner, startSession } from '../helpers/clients.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { fetchSession, fetchTurns } from './http.js';

const hubs: TestHub[] = [];
let clock: ManualClock;
afterEach(async () => {
  closeAllClients();
  for (const hub of hubs.splice(0)) await hub.close().catch(() => undefined);
});

async function start(): Promise<TestHub> {
  clock = new ManualClock(1_700_000_000_000);
  const hub = await startTestHub({ clock, config: { agentAliveMs: 60_000, idleMs: 300_000 } });
  hubs.push(hub);
  return hub;
}

/** A hook-style session (detached run) with an open turn. */
async function hookSession(hub: TestHub) {
  const runner = await connectRunner(hub.url, hub.tokens.runner);
  const session = await startSession(runner, { detached: true });
  await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'work on it' });
  runner.disconnect();
  return session;
}

async function post(hub: TestHub, path: string, body: unknown, token: string = hub.tokens.agent): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${hub.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

const report = async (hub: TestHub, tag: string, agent: 'alive' | 'gone') => {
  const answer = await post(hub, '/api/hooks/agent', { flavor: 'claude', tag, agent });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as HookAgentReportResponse;
};

describe('the agent keeper on the hub', () => {
  it('alive reports keep the run past both windows; once they stop, the sweep ends it agent_silent after the alive window', async () => {
    const hub = await start();
    const session = await hookSession(hub);
    expect(await report(hub, session.tag, 'alive')).toEqual({ live: true, everyMs: 20_000 });
    // ten minutes of reports every 20 s: past the idle window (5 min) and many alive windows
    for (let i = 0; i < 30; i++) {
      clock.advance(20_000);
      await report(hub, session.tag, 'alive');
      expect((await hub.sweepNow()).silentRunsEnded).toBe(0);
    }
    expect((await fetchSession(hub, session.sid)).lifecycle).toMatchObject({ lastRun: { status: 'running' } });
    expect((await fetchSession(hub, session.sid)).activity).not.toBe('lost');

    // the keeper and its agent gone at once (a machine off): nothing for one window, then lost
    const queued = await post(hub, `/api/sessions/${session.sid}/messages`, { text: 'still there?' }, hub.tokens.operator);
    expect(queued.status).toBe(201);
    clock.advance(59_999);
    expect((await hub.sweepNow()).silentRunsEnded).toBe(0);
    clock.advance(1);
    expect((await hub.sweepNow()).silentRunsEnded).toBe(1);
    const ended = await fetchSession(hub, session.sid);
    expect(ended.activity).toBe('lost');
    expect(ended.lifecycle).toMatchObject({ state: 'ended', reason: 'agent_silent', by: 'hub', lastRun: { status: 'interrupted', reason: 'agent_silent' } });
    // (ten minutes without a prompt or tool closed it as timeout on the way: a keeper is not turn activity)
    expect(ended.currentTurn).toBeNull();
    const messages = await fetch(`${hub.url}/api/sessions/${session.sid}/messages`, { headers: { authorization: `Bearer ${hub.tokens.dashboard}` } });
    expect(await messages.json()).toMatchObject({ messages: [{ text: 'still there?', state: 'queued' }], reach: 'stop' });
    // an alive after the end keeps nothing: the keeper stops
    expect(await report(hub, session.tag, 'alive')).toMatchObject({ live: false });
  });

  it('gone ends the run agent_gone at once, its turn aborted; the next hook event reopens the session', async () => {
    const hub = await start();
    const session = await hookSession(hub);
    await report(hub, session.tag, 'alive');
    expect(await report(hub, session.tag, 'gone')).toMatchObject({ live: false });
    const ended = await fetchSession(hub, session.sid);
    expect(ended.activity).toBe('lost');
    expect(ended.lifecycle).toMatchObject({ state: 'ended', reason: 'agent_gone', by: 'hub' });
    expect((await fetchTurns(hub, session.sid)).at(-1)).toMatchObject({ status: 'aborted' });
    expect((await hub.sweepNow()).silentRunsEnded).toBe(0);

    const back = await post(hub, '/api/hooks', { events: [{ id: 'e-back', flavor: 'claude', firedAt: clock.now(), seq: 0, payload: { hook_event_name: 'UserPromptSubmit', session_id: session.tag, prompt: 'again' } }] });
    expect(back.body).toMatchObject({ results: [{ outcome: 'applied', sid: session.sid }] });
    expect((await fetchSession(hub, session.sid)).activity).toBe('working');
  });

  it('a late gone from the keeper of an agent that exited leaves the run the resumed agent (another process, the same session) opened', async () => {
    const hub = await start();
    const tag = 'resumed-agent';
    let seq = 0;
    const hooks = (agentPid: number, payloads: object[]) =>
      post(hub, '/api/hooks', { events: payloads.map((payload) => ({ id: `e-${seq}`, flavor: 'claude', firedAt: clock.now(), seq: seq++, agentPid, payload: { session_id: tag, cwd: '/p', ...payload } })) });
    // claude -p (pid 2001), its keeper's alive; then it ends and claude --resume (pid 2002) starts
    await hooks(2001, [{ hook_event_name: 'SessionStart', source: 'startup' }, { hook_event_name: 'UserPromptSubmit', prompt: 'first' }]);
    expect(await post(hub, '/api/hooks/agent', { flavor: 'claude', tag, agent: 'alive', pid: 2001 })).toMatchObject({ status: 200, body: { live: true } });
    await hooks(2001, [{ hook_event_name: 'Stop', last_assistant_message: 'done' }, { hook_event_name: 'SessionEnd', reason: 'other' }]);
    const started = await hooks(2002, [{ hook_event_name: 'SessionStart', source: 'resume' }, { hook_event_name: 'UserPromptSubmit', prompt: 'again' }]);
    const sid = (started.body as { results: { sid: string }[] }).results[0]!.sid;
    // the first keeper's gone, late: not the running agent's
    expect(await post(hub, '/api/hooks/agent', { flavor: 'claude', tag, agent: 'gone', pid: 2001 })).toMatchObject({ status: 200, body: { live: false } });
    expect((await fetchSession(hub, sid)).lifecycle).toMatchObject({ state: 'running' });
    expect((await fetchTurns(hub, sid)).at(-1)).toMatchObject({ prompt: 'again', status: 'open' });
    // the second keeper's gone ends it
    expect(await post(hub, '/api/hooks/agent', { flavor: 'claude', tag, agent: 'gone', pid: 2002 })).toMatchObject({ status: 200, body: { live: false } });
    expect((await fetchSession(hub, sid)).lifecycle).toMatchObject({ state: 'ended', reason: 'agent_gone' });
    expect((await fetchTurns(hub, sid)).at(-1)).toMatchObject({ prompt: 'again', status: 'aborted' });
  });

  it('a run no keeper reported for keeps the idle window; a session unknown or run by a socket runner is nothing to keep', async () => {
    const hub = await start();
    const session = await hookSession(hub);
    expect(await report(hub, 'no-such-session', 'alive')).toMatchObject({ live: false });
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const attached = await startSession(runner);
    expect(await report(hub, attached.tag, 'gone')).toMatchObject({ live: false });
    expect((await fetchSession(hub, attached.sid)).lifecycle).toMatchObject({ state: 'running' });
    clock.advance(300_000);
    await runner.emitWithAck('session-alive', { sid: attached.sid, time: clock.now() });
    expect((await hub.sweepNow()).silentRunsEnded).toBe(1);
    expect((await fetchSession(hub, session.sid)).lifecycle).toMatchObject({ state: 'ended', reason: 'runner_silent' });
  });

  it('refuses a dashboard token (403) and a report naming no session (400, naming the field)', async () => {
    const hub = await start();
    expect((await post(hub, '/api/hooks/agent', { flavor: 'claude', tag: 't', agent: 'alive' }, hub.tokens.dashboard)).status).toBe(403);
    const bad = await post(hub, '/api/hooks/agent', { flavor: 'claude', agent: 'alive' });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('tag');
  });
});
