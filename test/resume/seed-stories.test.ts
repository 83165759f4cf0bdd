/**
 * The three bug reports behind resume, end to end against the real hub process:
 * seed 000 (a crash-archive from an empty runner cache erased the token), seed 003 (a run killed
 * half-way was resumed as if it had finished), seed 002 (an expired agent needs one fresh start).
 */
import { describe, expect, it } from 'vitest';
import { closeAllClients, connectRunner, startSession } from '../helpers/clients.js';
import { spawnHub, stopHubsAfterEach } from '../helpers/hub-process.js';
import { api, getSnapshot, postResume, until } from './http.js';

stopHubsAfterEach();

const SPARSE_ARCHIVE = { lifecycleState: 'archived', archivedBy: 'cli', archiveReason: 'Session crashed' };
const CURSOR_METADATA = { path: '/repo', host: 'laptop', cursorSessionId: 'cur-uuid-1', cursorSessionProtocol: 'acp' };

describe('seed 000: crash-archive from a stale or empty runner cache', () => {
  it('keeps the token; after a successful run, safe resume works, also after a kill -9 and restart', async () => {
    const hub = await spawnHub();
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner, { flavor: 'cursor', metadata: CURSOR_METADATA });
    await runner.emitWithAck('session-end', { sid: session.sid, reason: 'completed' });
    const ack = await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 1, metadata: SPARSE_ARCHIVE });
    expect(ack).toMatchObject({ result: 'success', version: 2, metadata: { ...CURSOR_METADATA, ...SPARSE_ARCHIVE } });

    const answer = await postResume(hub.url, hub.tokens.runner, session.sid);
    expect(answer).toMatchObject({ status: 200, body: { flavor: 'cursor', tokenKey: 'cursorSessionId', token: 'cur-uuid-1', path: '/repo', lastRun: { status: 'success' } } });
    const snapshot = (await getSnapshot(hub.url, hub.tokens.runner, session.sid)).body;
    expect(snapshot.lifecycle).toMatchObject({ state: 'archived', reason: 'Session crashed', by: 'runner' });
    expect(snapshot.metadata.value.cursorSessionProtocol).toBe('acp');

    closeAllClients();
    await hub.kill9();
    const restarted = await spawnHub({ dataDir: hub.dataDir });
    expect(await postResume(restarted.url, restarted.tokens.runner, session.sid)).toMatchObject({ status: 200, body: { token: 'cur-uuid-1' } });
  });

  it('with the run live at the archive: "Session crashed" is no success, so the run ends cancelled, resume is unsafe, and the token stays for force', async () => {
    const hub = await spawnHub();
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner, { flavor: 'cursor', metadata: CURSOR_METADATA });
    await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 1, metadata: SPARSE_ARCHIVE });
    const snapshot = (await getSnapshot(hub.url, hub.tokens.runner, session.sid)).body;
    expect(snapshot.lifecycle).toMatchObject({ state: 'archived', lastRun: { status: 'cancelled', reason: 'Session crashed' } });
    expect(await postResume(hub.url, hub.tokens.runner, session.sid)).toMatchObject({ status: 409, body: { error: 'resume_unsafe', reason: 'last_run_cancelled' } });
    expect(await postResume(hub.url, hub.tokens.runner, session.sid, 'force')).toMatchObject({ status: 200, body: { token: 'cur-uuid-1' } });

    // a runner that knows it crashed says so, and the safety gate holds
    const crashed = await startSession(runner, { flavor: 'cursor', metadata: { ...CURSOR_METADATA, cursorSessionId: 'cur-uuid-2' } });
    await runner.emitWithAck('session-archive', { sid: crashed.sid, reason: 'Session crashed', status: 'crashed' });
    expect(await postResume(hub.url, hub.tokens.runner, crashed.sid)).toMatchObject({ status: 409, body: { error: 'resume_unsafe', reason: 'last_run_crashed' } });
    expect(await postResume(hub.url, hub.tokens.runner, crashed.sid, 'force')).toMatchObject({ status: 200, body: { token: 'cur-uuid-2' } });
  });
});

describe('seed 003: a run killed half-way', () => {
  it('ends interrupted after the grace (runner and hub both killed) and answers resume_unsafe; force gives the same token', async () => {
    const env = { SESSION_HUB_RUN_GRACE_MS: '400', SESSION_HUB_SWEEP_MS: '100' };
    const hub = await spawnHub({ env });
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner, { metadata: { path: '/repo', claudeSessionId: 'claude-half' } });
    await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'refactor everything' });
    await runner.emitWithAck('tool-use', { sid: session.sid, tool: 'Bash', toolUseId: 'tu-1', input: { command: 'rm -rf build' } });
    expect(await postResume(hub.url, hub.tokens.runner, session.sid)).toMatchObject({ status: 409, body: { reason: 'run_in_progress' } });

    await hub.kill9(); // the hub dies with the runner attached; the runner never comes back
    closeAllClients();
    const restarted = await spawnHub({ dataDir: hub.dataDir, env });
    await until(async () => (await getSnapshot(restarted.url, restarted.tokens.runner, session.sid)).body.lifecycle.lastRun.status !== 'running', 'the lost run to end');

    const snapshot = (await getSnapshot(restarted.url, restarted.tokens.runner, session.sid)).body;
    expect(snapshot.lifecycle).toMatchObject({ state: 'ended', reason: 'runner_lost', by: 'hub', lastRun: { status: 'interrupted', reason: 'runner_lost' } });
    expect(snapshot.metadata.value.claudeSessionId).toBe('claude-half');
    expect(snapshot.resume).toEqual({ available: true, safe: false, tokenKey: 'claudeSessionId', reason: 'last_run_interrupted' });
    expect(await postResume(restarted.url, restarted.tokens.runner, session.sid)).toMatchObject({ status: 409, body: { error: 'resume_unsafe', reason: 'last_run_interrupted' } });
    expect(await postResume(restarted.url, restarted.tokens.runner, session.sid, 'force')).toMatchObject({ status: 200, body: { token: 'claude-half', policy: 'force' } });
    const turns = (await api(restarted.url, restarted.tokens.runner, 'GET', `/api/sessions/${session.sid}/turns`)).body;
    expect(turns.map((t: any) => [t.prompt, t.status, t.activities.length])).toEqual([['refactor everything', 'aborted', 1]]);
  });
});

describe('seed 002: an agent the vendor expired', () => {
  it('gets one fresh start with the transcript to replay, never two, and its new token resumes', async () => {
    const hub = await spawnHub();
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const tag = 'cursor-chat-42';
    const session = await startSession(runner, { tag, flavor: 'cursor', metadata: { path: '/repo', cursorSessionId: 'agent-old', cursorSessionProtocol: 'acp' } });
    await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'write the parser' });
    await runner.emitWithAck('turn-stop', { sid: session.sid, response: 'done' });
    await runner.emitWithAck('session-end', { sid: session.sid, reason: 'completed' });

    // idle for days; the user comes back: the runner resumes with the stored token
    expect(await postResume(hub.url, hub.tokens.runner, session.sid)).toMatchObject({ status: 200, body: { token: 'agent-old' } });
    await startSession(runner, { tag, flavor: 'cursor', source: 'resume', sid: session.sid });
    await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'now add tests' });
    const failure = { sid: session.sid, tokenKey: 'cursorSessionId', token: 'agent-old', stage: 'first-send' as const, emitted: false, aborted: false, error: 'Cursor run ended with status "error"' };
    const first = await runner.emitWithAck('resume-failed', failure);
    expect(first.ok && first.action).toBe('fresh-start');
    expect(first.ok && first.replay!.map((t) => t.prompt)).toEqual(['write the parser', 'now add tests']);
    expect(await runner.emitWithAck('resume-failed', failure)).toEqual({ ok: true, action: 'fail' });

    const current = (await getSnapshot(hub.url, hub.tokens.runner, session.sid)).body;
    expect(current.resume.reason).toBe('token_rejected');
    const written = await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: current.metadata.version, patch: { cursorSessionId: 'agent-new' } });
    expect(written).toMatchObject({ result: 'success', metadata: { cursorSessionId: 'agent-new' } });
    // a different id without its own protocol drops the old one (pairing rule)
    expect(written.result === 'success' && written.metadata.cursorSessionProtocol).toBeUndefined();
    await runner.emitWithAck('turn-stop', { sid: session.sid, response: 'tests added' });
    await runner.emitWithAck('session-end', { sid: session.sid, reason: 'completed' });
    expect(await postResume(hub.url, hub.tokens.runner, session.sid)).toMatchObject({ status: 200, body: { token: 'agent-new', lastRun: { status: 'success' } } });
  });
});
