import { describe, expect, it } from 'vitest';
import { getFlavor } from '../../shared/flavors.js';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import { collectUpdates, connectDashboard, connectRunner, startSession, waitFor, type RunnerSocket } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { expectTokenNeverRemoved, fetchSession, fetchTurns } from './http.js';

let hub: TestHub;
let runner: RunnerSocket;
useTestHub(async (started) => {
  hub = started;
  runner = await connectRunner(hub.url, hub.tokens.runner);
});

/** A session of `flavor` with its resume token set and one open turn; a second runner watches its room. */
async function sessionWithOpenTurn(flavor: string) {
  const tokenKey = getFlavor(flavor)?.resumeTokenKey ?? 'claudeSessionId';
  const session = await startSession(runner, { flavor, metadata: { path: '/p', [tokenKey]: `${flavor}-token` } });
  const turn = await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'work' });
  const watcher = await connectRunner(hub.url, hub.tokens.runner);
  await watcher.emitWithAck('session-join', { sid: session.sid });
  return { sid: session.sid, tokenKey, turnId: turn.ok ? turn.turnId : '', seen: collectUpdates(watcher) };
}
const lifecycleUpdates = (events: UpdateEvent[]) => events.flatMap((e) => (e.body.t === 'update-session' && e.body.lifecycle ? [e.body.lifecycle] : []));

describe('session-end for a flavor whose session-end is a turn boundary', () => {
  for (const flavor of ['grok', 'antigravity', 'hermes']) {
    it(`${flavor}: only closes the open turn as completed; the run and the lifecycle stay running`, async () => {
      const { sid, tokenKey, turnId, seen } = await sessionWithOpenTurn(flavor);
      // even a reason that would fail an ordinary run changes nothing but the turn
      const ack = await runner.emitWithAck('session-end', { sid, reason: 'error' });
      expect(ack.ok && ack.session.lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running', endedAt: null } });
      expect(ack.ok && ack.session.currentTurn).toBeNull();
      expect((await fetchTurns(hub, sid)).map((t) => [t.turnId, t.status])).toEqual([[turnId, 'completed']]);
      await waitFor(() => seen.some((e) => e.body.t === 'turn' && e.body.turn.status === 'completed'), 2000, 'closed turn broadcast');

      // a second turn and a second session-end: still the same run
      await runner.emitWithAck('prompt-submit', { sid, prompt: 'more' });
      await runner.emitWithAck('session-end', { sid });
      const stored = await fetchSession(hub, sid);
      expect(stored.lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });
      expect(lifecycleUpdates(seen)).toEqual([]);
      await expectTokenNeverRemoved(hub, sid, tokenKey, `${flavor}-token`);
    });
  }

  it('hermes: session-finalize is its true end', async () => {
    const { sid, tokenKey, seen } = await sessionWithOpenTurn('hermes');
    await runner.emitWithAck('session-end', { sid, reason: 'completed' });
    const ack = await runner.emitWithAck('session-finalize', { sid, reason: 'completed' });
    expect(ack.ok && ack.session.lifecycle).toMatchObject({ state: 'ended', reason: 'completed', by: 'runner', lastRun: { status: 'success', reason: 'completed' } });
    await waitFor(() => lifecycleUpdates(seen).some((l) => l.state === 'ended'), 2000, 'ended broadcast');
    await expectTokenNeverRemoved(hub, sid, tokenKey, 'hermes-token');
  });
});

describe('session-end for an ordinary flavor', () => {
  const cases: [reason: string | undefined, status: string][] = [
    ['completed', 'success'],
    ['terminated', 'cancelled'],
    ['cancelled', 'cancelled'],
    ['error', 'failure'],
    ['crashed', 'failure'],
    ['logout', 'success'],
    [undefined, 'success'],
  ];
  for (const [reason, status] of cases) {
    it(`claude, reason ${reason ?? '(none)'}: run ends ${status}, lifecycle ended, open turn ${status === 'success' ? 'completed' : 'aborted'}`, async () => {
      const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
      await dashboard.emitWithAck('subscribe', {});
      const dashSeen = collectUpdates(dashboard);
      const { sid, tokenKey, turnId, seen } = await sessionWithOpenTurn('claude');

      const ack = await runner.emitWithAck('session-end', { sid, ...(reason ? { reason } : {}) });

      expect(ack.ok && ack.session.lifecycle).toMatchObject({ state: 'ended', reason: reason ?? null, by: 'runner', lastRun: { status, reason: reason ?? null } });
      expect(ack.ok && ack.session.lifecycle.lastRun?.endedAt).toEqual(expect.any(Number));
      expect(ack.ok && ack.session.resume).toMatchObject(status === 'success' ? { available: true, safe: true } : { available: true, safe: false, reason: `last_run_${status}` });
      expect((await fetchTurns(hub, sid)).map((t) => [t.turnId, t.status])).toEqual([[turnId, status === 'success' ? 'completed' : 'aborted']]);
      for (const events of [seen, dashSeen]) {
        await waitFor(() => lifecycleUpdates(events).some((l) => l.state === 'ended' && l.lastRun?.status === status), 2000, 'ended broadcast');
      }
      await expectTokenNeverRemoved(hub, sid, tokenKey, 'claude-token');
    });
  }

  it('an explicit status wins over the reason; an unknown flavor gets ordinary semantics', async () => {
    const claude = await sessionWithOpenTurn('claude');
    const ack = await runner.emitWithAck('session-end', { sid: claude.sid, reason: 'completed', status: 'crashed' });
    expect(ack.ok && ack.session.lifecycle.lastRun?.status).toBe('crashed');

    const unknown = await startSession(runner, { flavor: 'brand-new-agent', metadata: { path: '/x' } });
    const end = await runner.emitWithAck('session-end', { sid: unknown.sid });
    expect(end.ok && end.session.lifecycle).toMatchObject({ state: 'ended', lastRun: { status: 'success' } });
  });

  it('a second session-end does not end anything twice; session-end on an archived session keeps it archived', async () => {
    const { sid } = await sessionWithOpenTurn('claude');
    const first = await runner.emitWithAck('session-end', { sid, reason: 'error' });
    const second = await runner.emitWithAck('session-end', { sid, reason: 'completed' });
    expect(second.ok && second.session.lifecycle.lastRun).toEqual(first.ok && first.session.lifecycle.lastRun);

    const other = await startSession(runner);
    await runner.emitWithAck('session-archive', { sid: other.sid, reason: 'done' });
    const end = await runner.emitWithAck('session-end', { sid: other.sid });
    expect(end.ok && end.session.lifecycle.state).toBe('archived');
  });
});

describe('session-finalize', () => {
  for (const flavor of ['claude', 'grok', 'antigravity', 'hermes', 'codex']) {
    it(`${flavor}: closes the open turn, ends the run and the lifecycle`, async () => {
      const { sid, tokenKey, turnId } = await sessionWithOpenTurn(flavor);
      const ack = await runner.emitWithAck('session-finalize', { sid, reason: 'terminated' });
      expect(ack.ok && ack.session.lifecycle).toMatchObject({ state: 'ended', reason: 'terminated', lastRun: { status: 'cancelled' } });
      expect((await fetchTurns(hub, sid)).map((t) => [t.turnId, t.status])).toEqual([[turnId, 'aborted']]);
      await expectTokenNeverRemoved(hub, sid, tokenKey, `${flavor}-token`);
    });
  }
});

describe('archive', () => {
  it('session-archive: lifecycle archived by runner, the live run ends, the token stays', async () => {
    const { sid, seen } = await sessionWithOpenTurn('claude');
    const ack = await runner.emitWithAck('session-archive', { sid, reason: 'cancelled' });
    expect(ack.ok && ack.session.lifecycle).toMatchObject({ state: 'archived', reason: 'cancelled', by: 'runner', lastRun: { status: 'cancelled' } });
    await waitFor(() => lifecycleUpdates(seen).some((l) => l.state === 'archived'), 2000, 'archived broadcast');
    await expectTokenNeverRemoved(hub, sid, 'claudeSessionId', 'claude-token');

    const withStatus = await sessionWithOpenTurn('codex');
    const ack2 = await runner.emitWithAck('session-archive', { sid: withStatus.sid, reason: 'whatever', status: 'failure' });
    expect(ack2.ok && ack2.session.lifecycle.lastRun?.status).toBe('failure');
  });

  it('a metadata write with lifecycleState archived is also an archive, and the merge rules still hold', async () => {
    const { sid, seen } = await sessionWithOpenTurn('claude');
    const write = await runner.emitWithAck('update-metadata', {
      sid,
      expectedVersion: 1,
      metadata: { lifecycleState: 'archived', archiveReason: 'user closed it', archivedBy: 'cli' },
    });
    expect(write).toMatchObject({ result: 'success', version: 2, metadata: { lifecycleState: 'archived', path: '/p', claudeSessionId: 'claude-token' } });
    const stored = await fetchSession(hub, sid);
    // a reason outside the session-end table: the archive cut the live run off (docs/resume.md)
    expect(stored.lifecycle).toMatchObject({ state: 'archived', reason: 'user closed it', by: 'runner', lastRun: { status: 'cancelled' } });
    expect(stored.currentTurn).toBeNull();
    await waitFor(() => lifecycleUpdates(seen).some((l) => l.state === 'archived'), 2000, 'archived broadcast');
    await expectTokenNeverRemoved(hub, sid, 'claudeSessionId', 'claude-token');
  });

  it('HTTP archive: by user, a live run ends cancelled, and the runner hears of it', async () => {
    const { sid, seen } = await sessionWithOpenTurn('claude');
    const runnerSeen = collectUpdates(runner);
    const response = await fetch(`${hub.url}/api/sessions/${sid}/archive`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.tokens.runner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'tidy up' }),
    });
    expect(response.status).toBe(200);
    expect((await response.json()).lifecycle).toMatchObject({ state: 'archived', by: 'user', lastRun: { status: 'cancelled' } });
    for (const events of [seen, runnerSeen]) {
      await waitFor(() => lifecycleUpdates(events).some((l) => l.state === 'archived' && l.lastRun?.status === 'cancelled'), 2000, 'archived broadcast to every runner in the room');
    }
  });
});
