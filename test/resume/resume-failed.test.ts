import { describe, expect, it } from 'vitest';
import { connectRunner, startSession, type RunnerSocket } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { getSnapshot, postResume } from './http.js';

let hub: TestHub;
let runner: RunnerSocket;
useTestHub(async (started) => {
  hub = started;
  runner = await connectRunner(hub.url, hub.tokens.runner);
});

const TAG = 'expired-agent';

function report(sid: string, overrides: { emitted?: boolean; aborted?: boolean; stage?: 'resume' | 'first-send'; token?: string } = {}) {
  return runner.emitWithAck('resume-failed', {
    sid,
    tokenKey: 'claudeSessionId',
    token: overrides.token ?? 'A',
    stage: overrides.stage ?? 'first-send',
    emitted: overrides.emitted ?? false,
    aborted: overrides.aborted ?? false,
    error: 'Cursor run ended with status "error"',
  });
}

async function resumeReason(sid: string) {
  return (await getSnapshot(hub.url, hub.tokens.runner, sid)).body.resume.reason as string | null;
}

describe('resume-failed', () => {
  it('answers fresh-start once per run, with the prompt turns to replay, and fail on the second attempt', async () => {
    const session = await startSession(runner, { tag: TAG, metadata: { path: '/p', claudeSessionId: 'A' } });
    await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'first prompt' });
    await runner.emitWithAck('turn-stop', { sid: session.sid, response: 'first answer' });
    await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'second prompt' });

    const first = await report(session.sid, { stage: 'resume' });
    expect(first.ok && first.action).toBe('fresh-start');
    const replay = first.ok ? first.replay! : [];
    expect(replay.map((turn) => [turn.kind, turn.prompt, turn.status])).toEqual([
      ['prompt', 'first prompt', 'completed'],
      ['prompt', 'second prompt', 'open'],
    ]);
    expect(replay[0]!.response).toBe('first answer');
    expect(await resumeReason(session.sid)).toBe('token_rejected');

    expect(await report(session.sid)).toEqual({ ok: true, action: 'fail' });
    expect(await report(session.sid, { stage: 'resume' })).toEqual({ ok: true, action: 'fail' });
  });

  it('answers fail after output was emitted or after a user abort, without rejecting the token or using the retry', async () => {
    const session = await startSession(runner, { tag: TAG, metadata: { path: '/p', claudeSessionId: 'A' } });
    expect(await report(session.sid, { emitted: true })).toEqual({ ok: true, action: 'fail' });
    expect(await report(session.sid, { aborted: true })).toEqual({ ok: true, action: 'fail' });
    expect(await report(session.sid, { emitted: true, aborted: true })).toEqual({ ok: true, action: 'fail' });
    expect(await resumeReason(session.sid)).toBe('run_in_progress');
    // the run has not retried yet: a clean failure still gets its one fresh start
    expect(await report(session.sid)).toMatchObject({ ok: true, action: 'fresh-start' });
  });

  it('gives a new run its own retry', async () => {
    const session = await startSession(runner, { tag: TAG, metadata: { path: '/p', claudeSessionId: 'A' } });
    expect(await report(session.sid)).toMatchObject({ action: 'fresh-start' });
    expect(await report(session.sid)).toMatchObject({ action: 'fail' });
    const again = await startSession(runner, { tag: TAG, source: 'resume', metadata: { claudeSessionId: 'B' } });
    expect(again.sid).toBe(session.sid);
    expect(await report(session.sid, { token: 'B' })).toMatchObject({ action: 'fresh-start' });
    expect(await report(session.sid, { token: 'B' })).toMatchObject({ action: 'fail' });
  });

  it('answers fail when no run is live', async () => {
    const session = await startSession(runner, { tag: TAG, metadata: { path: '/p', claudeSessionId: 'A' } });
    await runner.emitWithAck('session-end', { sid: session.sid, reason: 'completed' });
    expect(await report(session.sid)).toEqual({ ok: true, action: 'fail' });
    expect(await resumeReason(session.sid)).toBeNull();
  });

  it('lets the new token, reported by an ordinary metadata write, win; resume then hands it out', async () => {
    const session = await startSession(runner, { tag: TAG, metadata: { path: '/p', claudeSessionId: 'A' } });
    await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'hello' });
    expect(await report(session.sid)).toMatchObject({ action: 'fresh-start' });
    expect(await postResume(hub.url, hub.tokens.runner, session.sid, 'force')).toMatchObject({ status: 409, body: { reason: 'token_rejected' } });

    const snapshot = (await getSnapshot(hub.url, hub.tokens.runner, session.sid)).body;
    const ack = await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: snapshot.metadata.version, patch: { claudeSessionId: 'fresh-B' } });
    expect(ack).toMatchObject({ result: 'success', metadata: { claudeSessionId: 'fresh-B', path: '/p' } });
    expect(await resumeReason(session.sid)).toBe('run_in_progress');
    expect(await postResume(hub.url, hub.tokens.runner, session.sid, 'force')).toMatchObject({ status: 200, body: { token: 'fresh-B' } });

    await runner.emitWithAck('turn-stop', { sid: session.sid, response: 'replayed and answered' });
    await runner.emitWithAck('session-end', { sid: session.sid, reason: 'completed' });
    expect(await postResume(hub.url, hub.tokens.runner, session.sid)).toMatchObject({ status: 200, body: { token: 'fresh-B', policy: 'safe', lastRun: { status: 'success' } } });
  });

  it('answers not_found for an unknown session or another tenant\'s', async () => {
    const session = await startSession(runner, { tag: TAG, metadata: { path: '/p', claudeSessionId: 'A' } });
    const other = await connectRunner(hub.url, hub.tokens.otherRunner);
    const ack = await other.emitWithAck('resume-failed', { sid: session.sid, tokenKey: 'claudeSessionId', token: 'A', stage: 'resume', emitted: false, aborted: false });
    expect(ack).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await resumeReason(session.sid)).toBe('run_in_progress');
  });
});
