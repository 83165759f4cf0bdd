import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import { connectRunner, startSession, type RunnerSocket } from '../helpers/clients.js';
import { closeTestHubsAfterEach, startTestHub, type TestHub } from '../helpers/hub.js';
import { api, getSnapshot, postResume, until } from './http.js';

const TTL = 10_000;
let hub: TestHub;
closeTestHubsAfterEach();

async function setup(config: Record<string, unknown> = {}) {
  const clock = new ManualClock(1_700_000_000_000);
  hub = await startTestHub({ config: { tokenTtlMs: TTL, sweepMs: 3_600_000, ...config }, clock });
  const runner = await connectRunner(hub.url, hub.tokens.runner);
  return { clock, runner };
}

async function resumeReason(sid: string): Promise<string | null> {
  return (await getSnapshot(hub.url, hub.tokens.runner, sid)).body.resume.reason;
}

async function write(runner: RunnerSocket, sid: string, patch: Record<string, unknown>) {
  const { body } = await getSnapshot(hub.url, hub.tokens.runner, sid);
  const ack = await runner.emitWithAck('update-metadata', { sid, expectedVersion: body.metadata.version, patch: patch as never });
  expect(ack.result).toBe('success');
}

/** A whole-document write of the stored document with `changes` applied: the runner re-sends what it has. */
async function rewrite(runner: RunnerSocket, sid: string, changes: Record<string, unknown> = {}) {
  const { body } = await getSnapshot(hub.url, hub.tokens.runner, sid);
  const ack = await runner.emitWithAck('update-metadata', { sid, expectedVersion: body.metadata.version, metadata: { ...body.metadata.value, ...changes } });
  expect(ack.result).toBe('success');
}

describe('token TTL', () => {
  it('counts from when the key changed to its current value: the same value again does not refresh it, a different one does', async () => {
    const { clock, runner } = await setup();
    const session = await startSession(runner, { metadata: { path: '/p', claudeSessionId: 'A' } });
    await runner.emitWithAck('session-end', { sid: session.sid, reason: 'completed' });
    expect((await postResume(hub.url, hub.tokens.runner, session.sid)).status).toBe(200);

    clock.advance(6_000);
    await rewrite(runner, session.sid, { claudeSessionId: 'A', note: 'same token, sent again' });
    await write(runner, session.sid, { claudeSessionId: 'A' });
    clock.advance(4_001); // 10 001 ms after A was first written, 4 001 after it was last re-sent
    expect(await postResume(hub.url, hub.tokens.runner, session.sid)).toMatchObject({ status: 409, body: { error: 'resume_unavailable', reason: 'token_expired' } });
    expect(await postResume(hub.url, hub.tokens.runner, session.sid, 'force')).toMatchObject({ status: 409, body: { reason: 'token_expired' } });
    expect((await getSnapshot(hub.url, hub.tokens.dashboard, session.sid)).body.resume).toEqual({
      available: false,
      safe: false,
      tokenKey: 'claudeSessionId',
      reason: 'token_expired',
    });

    await write(runner, session.sid, { claudeSessionId: 'B' });
    expect(await postResume(hub.url, hub.tokens.runner, session.sid)).toMatchObject({ status: 200, body: { token: 'B' } });
    clock.advance(TTL);
    expect((await postResume(hub.url, hub.tokens.runner, session.sid)).status).toBe(200);
    clock.advance(1);
    expect(await postResume(hub.url, hub.tokens.runner, session.sid)).toMatchObject({ status: 409, body: { reason: 'token_expired' } });
  });

  it('keeps the age of a token that is cleared and later restored with the same value', async () => {
    const { clock, runner } = await setup();
    const session = await startSession(runner, { metadata: { path: '/p', claudeSessionId: 'A' } });
    await runner.emitWithAck('session-end', { sid: session.sid, reason: 'completed' });
    clock.advance(TTL - 1_000);
    await write(runner, session.sid, { claudeSessionId: null });
    expect(await resumeReason(session.sid)).toBe('no_token');
    const repaired = await api(hub.url, hub.tokens.admin, 'POST', `/api/sessions/${session.sid}/repair`, {});
    expect(repaired.body.restored).toEqual({ claudeSessionId: 'A' });
    expect(await resumeReason(session.sid)).toBeNull();
    clock.advance(1_001);
    expect(await resumeReason(session.sid)).toBe('token_expired');
  });
});

describe('precedence', () => {
  it('no_token before token_rejected before token_expired before resume_unsafe', async () => {
    const { clock, runner } = await setup();
    const session = await startSession(runner, { metadata: { path: '/p', claudeSessionId: 'A' } });
    const failed = await runner.emitWithAck('resume-failed', { sid: session.sid, tokenKey: 'claudeSessionId', token: 'A', stage: 'resume', emitted: false, aborted: false });
    expect(failed).toMatchObject({ ok: true, action: 'fresh-start' });
    await runner.emitWithAck('session-end', { sid: session.sid, reason: 'error' });
    clock.advance(TTL + 1);
    // rejected, expired and unsafe all hold: rejected wins
    expect(await postResume(hub.url, hub.tokens.runner, session.sid)).toMatchObject({ status: 409, body: { error: 'resume_unavailable', reason: 'token_rejected' } });
    // a new token: no longer rejected, not expired, still unsafe
    await write(runner, session.sid, { claudeSessionId: 'B' });
    expect(await postResume(hub.url, hub.tokens.runner, session.sid)).toMatchObject({ status: 409, body: { error: 'resume_unsafe', reason: 'last_run_failure' } });
    clock.advance(TTL + 1);
    // expired and unsafe: expired wins, and force does not skip it
    for (const policy of ['safe', 'force'] as const) {
      expect(await postResume(hub.url, hub.tokens.runner, session.sid, policy)).toMatchObject({ status: 409, body: { error: 'resume_unavailable', reason: 'token_expired' } });
    }
    // no token at all beats everything
    await write(runner, session.sid, { claudeSessionId: null });
    expect(await postResume(hub.url, hub.tokens.runner, session.sid, 'force')).toMatchObject({ status: 409, body: { reason: 'no_token' } });
  });
});

describe('rejection', () => {
  it('stands until a different value is written: re-sending it, or clearing and restoring it, does not lift it', async () => {
    const { runner } = await setup();
    const session = await startSession(runner, { metadata: { path: '/p', claudeSessionId: 'A' } });
    await runner.emitWithAck('resume-failed', { sid: session.sid, tokenKey: 'claudeSessionId', token: 'A', stage: 'first-send', emitted: false, aborted: false });
    await runner.emitWithAck('session-end', { sid: session.sid, reason: 'completed' });
    expect(await resumeReason(session.sid)).toBe('token_rejected');
    await rewrite(runner, session.sid, { claudeSessionId: 'A' });
    expect(await resumeReason(session.sid)).toBe('token_rejected');
    await write(runner, session.sid, { claudeSessionId: null });
    await write(runner, session.sid, { claudeSessionId: 'A' });
    expect(await postResume(hub.url, hub.tokens.runner, session.sid, 'force')).toMatchObject({ status: 409, body: { reason: 'token_rejected' } });
    await write(runner, session.sid, { claudeSessionId: 'C' });
    expect(await postResume(hub.url, hub.tokens.runner, session.sid)).toMatchObject({ status: 200, body: { token: 'C' } });
  });
});

describe('invalidation never deletes the token', () => {
  it('a failed, an archived-while-live and a lost run each mark the session unsafe and keep the token', async () => {
    const { clock, runner } = await setup({ runGraceMs: 1_000 });
    const failed = await startSession(runner, { metadata: { path: '/p', claudeSessionId: 'failed-token' } });
    await runner.emitWithAck('session-end', { sid: failed.sid, reason: 'error' });
    const archived = await startSession(runner, { metadata: { path: '/p', claudeSessionId: 'archived-token' } });
    expect((await api(hub.url, hub.tokens.admin, 'POST', `/api/sessions/${archived.sid}/archive`, { reason: 'user gave up' })).status).toBe(200);
    const lostRunner = await connectRunner(hub.url, hub.tokens.runner);
    const lost = await startSession(lostRunner, { metadata: { path: '/p', claudeSessionId: 'lost-token' } });
    lostRunner.disconnect();
    await until(async () => !(await getSnapshot(hub.url, hub.tokens.runner, lost.sid)).body.presence.active, 'the hub to see the runner go');
    clock.advance(1_001);
    expect((await hub.sweepNow()).runsInterrupted).toBe(1);

    const cases = [
      [failed.sid, 'failed-token', 'last_run_failure'],
      [archived.sid, 'archived-token', 'last_run_cancelled'],
      [lost.sid, 'lost-token', 'last_run_interrupted'],
    ] as const;
    for (const [sid, token, reason] of cases) {
      const snapshot = (await getSnapshot(hub.url, hub.tokens.runner, sid)).body;
      expect(snapshot.metadata.value.claudeSessionId).toBe(token);
      expect(snapshot.resume).toEqual({ available: true, safe: false, tokenKey: 'claudeSessionId', reason });
      expect(await postResume(hub.url, hub.tokens.runner, sid)).toMatchObject({ status: 409, body: { error: 'resume_unsafe', reason } });
      expect(await postResume(hub.url, hub.tokens.runner, sid, 'force')).toMatchObject({ status: 200, body: { token } });
      const history = (await api(hub.url, hub.tokens.runner, 'GET', `/api/sessions/${sid}/history`)).body.history as { metadata: Record<string, unknown> }[];
      expect(history.every((entry) => entry.metadata.claudeSessionId === token)).toBe(true);
    }
  });
});
