/**
 * Seed 000 meets seed 003: a runner archives while its run is still live, with a free-text reason
 * ("Session crashed", "User terminated", "Local launch failed: …"). The archive ends the run; unless
 * the reason says the run completed, that run did not succeed, and a safe resume must not be offered.
 */
import { describe, expect, it } from 'vitest';
import { connectRunner, startSession } from '../helpers/clients.js';
import { closeTestHubsAfterEach, startTestHub } from '../helpers/hub.js';
import { postResume } from './http.js';

closeTestHubsAfterEach();

describe('an archive that ends a live run', () => {
  it.each([
    ['metadata', 'Session crashed'],
    ['metadata', 'User terminated'],
    ['metadata', 'Local launch failed: exit 1'],
    ['session-archive', 'Session crashed'],
  ])('through %s with reason "%s" leaves the session resume-unsafe, the token kept for force', async (path, reason) => {
    const hub = await startTestHub();
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner);
    if (path === 'metadata') {
      const ack = await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 1, metadata: { lifecycleState: 'archived', archivedBy: 'cli', archiveReason: reason } });
      expect(ack).toMatchObject({ result: 'success' });
    } else {
      expect(await runner.emitWithAck('session-archive', { sid: session.sid, reason })).toMatchObject({ ok: true });
    }
    expect(await postResume(hub.url, hub.tokens.runner, session.sid)).toMatchObject({ status: 409, body: { error: 'resume_unsafe', reason: 'last_run_cancelled' } });
    expect(await postResume(hub.url, hub.tokens.runner, session.sid, 'force')).toMatchObject({ status: 200, body: { token: 'claude-abc' } });
  });

  it('with a reason word of the session-end table keeps that mapping: completed is a success', async () => {
    const hub = await startTestHub();
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner);
    await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 1, metadata: { lifecycleState: 'archived', archiveReason: 'completed' } });
    expect(await postResume(hub.url, hub.tokens.runner, session.sid)).toMatchObject({ status: 200, body: { token: 'claude-abc', lastRun: { status: 'success' } } });
    const crashed = await startSession(runner, { metadata: { claudeSessionId: 'claude-2' } });
    await runner.emitWithAck('session-archive', { sid: crashed.sid, reason: 'crashed' });
    expect(await postResume(hub.url, hub.tokens.runner, crashed.sid)).toMatchObject({ status: 409, body: { reason: 'last_run_failure' } });
  });
});
