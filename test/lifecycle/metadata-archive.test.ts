/**
 * Archive through metadata (spec section 6) after the session was reopened: the stored document still
 * says `lifecycleState: 'archived'`, and a runner re-sending that document with an unrelated change
 * must not archive the reopened session again (which would end its new live run).
 */
import { describe, expect, it } from 'vitest';
import { connectRunner, startSession } from '../helpers/clients.js';
import { startTestHub, closeTestHubsAfterEach } from '../helpers/hub.js';
import { expectTokenNeverRemoved, fetchSession } from './http.js';

closeTestHubsAfterEach();

const ARCHIVE = { lifecycleState: 'archived', lifecycleStateSince: 1_000, archivedBy: 'cli', archiveReason: 'User terminated' };

describe('archive through metadata', () => {
  it('a reopened session is not archived again by a write that re-sends the stored archive record', async () => {
    const hub = await startTestHub();
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner);
    const archived = await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 1, metadata: { ...session.metadata.value, ...ARCHIVE } });
    expect(archived).toMatchObject({ result: 'success', version: 2 });
    expect((await fetchSession(hub, session.sid)).lifecycle.state).toBe('archived');

    // the runner comes back: a new run on the same session
    const reopened = await startSession(runner, { tag: session.tag, source: 'resume', metadata: undefined });
    expect(reopened.lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });

    // an ordinary write of the document it was handed, with one field changed
    const write = await runner.emitWithAck('update-metadata', {
      sid: session.sid,
      expectedVersion: reopened.metadata.version,
      metadata: { ...reopened.metadata.value, summary: 'still working' },
    });
    expect(write).toMatchObject({ result: 'success' });
    expect((await fetchSession(hub, session.sid)).lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });

    // a new archive (a new record) still archives
    const again = await runner.emitWithAck('update-metadata', {
      sid: session.sid,
      expectedVersion: reopened.metadata.version + 1,
      metadata: { ...reopened.metadata.value, ...ARCHIVE, lifecycleStateSince: 2_000, archiveReason: 'completed' },
    });
    expect(again).toMatchObject({ result: 'success' });
    expect((await fetchSession(hub, session.sid)).lifecycle).toMatchObject({ state: 'archived', reason: 'completed', lastRun: { status: 'success' } });
    await expectTokenNeverRemoved(hub, session.sid, 'claudeSessionId', 'claude-abc');
  });
});
