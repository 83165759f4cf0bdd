/**
 * Detached runs (session-start `detached: true`, as the hook bridge sends): no socket is held between
 * events, so a closing socket starts no run grace; the run ends as interrupted / runner_silent once
 * the session has had no activity for the idle time. Non-detached runs keep the grace (sweeps.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import { closeAllClients, collectUpdates, connectDashboard, connectRunner, startSession, waitFor } from '../helpers/clients.js';
import { getRun } from '../../hub/store/runs.js';
import { getSessionAnyNamespace } from '../../hub/store/sessions.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { expectTokenNeverRemoved, fetchSession } from './http.js';

const hubs: TestHub[] = [];
const dirs: string[] = [];
let clock: ManualClock;
async function start(dataDir?: string): Promise<TestHub> {
  const hub = await startTestHub({ clock, ...(dataDir ? { dataDir } : {}) });
  hubs.push(hub);
  return hub;
}
afterEach(async () => {
  closeAllClients();
  for (const hub of hubs.splice(0)) await hub.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A hook-style session: one short-lived socket starts it detached, sends a prompt and goes away. */
async function detachedSession(hub: TestHub, dashSeen: UpdateEvent[]) {
  const runner = await connectRunner(hub.url, hub.tokens.runner);
  const session = await startSession(runner, { detached: true });
  await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'first' });
  await runner.emitWithAck('turn-stop', { sid: session.sid, response: 'done' });
  runner.disconnect();
  await waitFor(() => dashSeen.some((e) => e.body.sid === session.sid && e.body.t === 'update-session' && e.body.presence?.active === false), 2000, 'inactive');
  return session;
}

/** The stored live run of a session (the snapshot does not carry run ids). */
const storedRun = async (hub: TestHub, sid: string) => (await getRun(hub.deps.store, (await getSessionAnyNamespace(hub.deps.store, sid))!.lastRun!.runId))!;

async function watchedHub() {
  clock = new ManualClock(1_700_000_000_000);
  const hub = await start();
  const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
  await dashboard.emitWithAck('subscribe', {});
  return { hub, dashSeen: collectUpdates(dashboard) };
}

describe('detached runs', () => {
  it('survive the socket closing and the whole run grace: still running, only presence goes inactive', async () => {
    const { hub, dashSeen } = await watchedHub();
    const session = await detachedSession(hub, dashSeen);
    const run = await storedRun(hub, session.sid);
    expect(run).toMatchObject({ detached: true, disconnectedAt: null });
    clock.advance(hub.deps.config.runGraceMs * 3);
    const report = await hub.sweepNow();
    expect(report.runsInterrupted).toBe(0);
    expect(report.silentRunsEnded).toBe(0);
    const after = await fetchSession(hub, session.sid);
    expect(after.lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });
    expect(await storedRun(hub, session.sid)).toMatchObject({ runId: run.runId, status: 'running', disconnectedAt: null });
    expect(after.presence.active).toBe(false);
  });

  it('end as interrupted / runner_silent after the idle time with no activity, token kept; activity postpones it', async () => {
    const { hub, dashSeen } = await watchedHub();
    const session = await detachedSession(hub, dashSeen);
    const { idleMs } = hub.deps.config;
    const firstRunId = (await storedRun(hub, session.sid)).runId;

    // a later hook event (a new short socket) is activity: the silence counts from it
    clock.advance(idleMs - 10);
    const hook = await connectRunner(hub.url, hub.tokens.runner);
    await hook.emitWithAck('session-join', { sid: session.sid });
    await hook.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'second' });
    hook.disconnect();
    clock.advance(10);
    expect((await hub.sweepNow()).silentRunsEnded).toBe(0);

    clock.advance(idleMs - 11);
    expect((await hub.sweepNow()).silentRunsEnded).toBe(0);
    clock.advance(1);
    const report = await hub.sweepNow();
    expect(report).toMatchObject({ silentRunsEnded: 1, runsInterrupted: 0, sessionsIdled: 0 });

    const ended = await fetchSession(hub, session.sid);
    expect(ended.lifecycle).toMatchObject({
      state: 'ended',
      reason: 'runner_silent',
      by: 'hub',
      since: clock.now(),
      lastRun: { status: 'interrupted', reason: 'runner_silent', endedAt: clock.now() },
    });
    // the open turn of the second prompt was aborted with the run
    expect(ended.currentTurn).toBeNull();
    expect(ended.resume).toMatchObject({ available: true, tokenKey: 'claudeSessionId' });
    await expectTokenNeverRemoved(hub, session.sid, 'claudeSessionId', 'claude-abc');
    await waitFor(() => dashSeen.some((e) => e.body.sid === session.sid && e.body.t === 'update-session' && e.body.lifecycle?.state === 'ended'), 2000, 'ended broadcast');
    expect((await hub.sweepNow()).silentRunsEnded).toBe(0);

    // the next hook event reopens it, as the bridge does: session-start source resume, a new detached run
    const back = await connectRunner(hub.url, hub.tokens.runner);
    const reopened = await startSession(back, { tag: session.tag, source: 'resume', detached: true });
    expect(reopened.sid).toBe(session.sid);
    expect(reopened.lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });
    expect(await storedRun(hub, session.sid)).toMatchObject({ status: 'running', detached: true });
    expect((await storedRun(hub, session.sid)).runId).not.toBe(firstRunId);
  });

  it('a non-detached session silent as long is only idled, and a detached one next to it ends', async () => {
    const { hub, dashSeen } = await watchedHub();
    const detached = await detachedSession(hub, dashSeen);
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const attached = await startSession(runner);
    clock.advance(hub.deps.config.idleMs);
    await runner.emitWithAck('session-alive', { sid: attached.sid, time: clock.now() });
    expect(await hub.sweepNow()).toMatchObject({ silentRunsEnded: 1, sessionsIdled: 1 });
    expect((await fetchSession(hub, attached.sid)).lifecycle).toMatchObject({ state: 'idle', lastRun: { status: 'running' } });
    expect((await fetchSession(hub, detached.sid)).lifecycle).toMatchObject({ state: 'ended', reason: 'runner_silent' });
  });

  it('get no run grace after a hub restart either, while a socket runner still does', async () => {
    clock = new ManualClock(1_700_000_000_000);
    const dataDir = mkdtempSync(join(tmpdir(), 'session-hub-detached-'));
    dirs.push(dataDir);
    const first = await start(dataDir);
    const runner = await connectRunner(first.url, first.tokens.runner);
    const detached = await startSession(runner, { detached: true });
    const attached = await startSession(runner);
    closeAllClients();
    await first.close();

    const second = await start(dataDir);
    clock.advance(second.deps.config.runGraceMs);
    expect((await second.sweepNow()).runsInterrupted).toBe(1);
    expect((await fetchSession(second, attached.sid)).lifecycle).toMatchObject({ state: 'ended', reason: 'runner_lost' });
    expect((await fetchSession(second, detached.sid)).lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });
  });
  it('are not ended by a hub restart after a long outage: their silence counts from the hub start, as the grace does', async () => {
    clock = new ManualClock(1_700_000_000_000);
    const dataDir = mkdtempSync(join(tmpdir(), 'session-hub-detached-'));
    dirs.push(dataDir);
    const first = await start(dataDir);
    const runner = await connectRunner(first.url, first.tokens.runner);
    const detached = await startSession(runner, { detached: true });
    await runner.emitWithAck('prompt-submit', { sid: detached.sid, prompt: 'first' });
    await runner.emitWithAck('turn-stop', { sid: detached.sid, response: 'done' });
    closeAllClients();
    await first.close();

    // the hub is down for longer than the idle time: no hook event could reach it meanwhile
    clock.advance(first.deps.config.idleMs * 2);
    const second = await start(dataDir);
    expect((await fetchSession(second, detached.sid)).lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });
    expect((await fetchSession(second, detached.sid)).resume).toMatchObject({ available: true, reason: 'run_in_progress' });

    // silent for the idle time since the hub came back: now it ends, as it would have without the outage
    clock.advance(second.deps.config.idleMs - 1);
    expect((await second.sweepNow()).silentRunsEnded).toBe(0);
    clock.advance(1);
    expect((await second.sweepNow()).silentRunsEnded).toBe(1);
    expect((await fetchSession(second, detached.sid)).lifecycle).toMatchObject({ state: 'ended', reason: 'runner_silent' });
    await expectTokenNeverRemoved(second, detached.sid, 'claudeSessionId', 'claude-abc');
  });
});
