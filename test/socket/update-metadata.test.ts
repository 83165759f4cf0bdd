import { describe, expect, it } from 'vitest';
import { collectUpdates, connectDashboard, connectRunner, startSession, waitFor } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';

let hub: TestHub;
useTestHub((started) => (hub = started));

describe('update-metadata', () => {
  it('keeps every protected key when a runner with an empty cache archives with a sparse blob', async () => {
    const writer = await connectRunner(hub.url, hub.tokens.runner);
    const other = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(writer, {
      metadata: { path: '/p', host: 'h', flavor: 'cursor', machineId: 'm1', cursorSessionId: 'cur-1', cursorSessionProtocol: 'acp', codexSessionId: 'cx', name: 'old' },
    });
    await other.emitWithAck('session-join', { sid: session.sid });
    const seen = collectUpdates(other);

    const ack = await writer.emitWithAck('update-metadata', {
      sid: session.sid,
      expectedVersion: 1,
      metadata: { lifecycleState: 'archived', archivedBy: 'cli', archiveReason: 'Session crashed' },
    });

    const expected = {
      lifecycleState: 'archived',
      archivedBy: 'cli',
      archiveReason: 'Session crashed',
      path: '/p',
      host: 'h',
      flavor: 'cursor',
      machineId: 'm1',
      cursorSessionId: 'cur-1',
      cursorSessionProtocol: 'acp',
      codexSessionId: 'cx',
    };
    expect(ack).toEqual({ result: 'success', version: 2, metadata: expected });
    await waitFor(() => seen.some((e) => e.body.t === 'update-session' && e.body.metadata !== null), 2000, 'broadcast');
    const update = seen.find((e) => e.body.t === 'update-session' && e.body.metadata !== null)!;
    expect(update.body.t === 'update-session' && update.body.metadata).toEqual({ version: 2, value: expected });
    expect(update.body.t === 'update-session' && update.body.lifecycle?.state).toBe('archived');
  });

  it('answers version-mismatch with the stored document and writes nothing', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner);
    const ack = await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 7, metadata: { x: 1 } });
    expect(ack).toEqual({ result: 'version-mismatch', version: 1, metadata: session.metadata.value });
  });

  it('delivers to dashboards subscribed to the namespace but not to the writer', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
    const session = await startSession(runner);
    const sub = await dashboard.emitWithAck('subscribe', {});
    expect(sub.ok && sub.sessions.map((s) => s.sid)).toEqual([session.sid]);
    const writerSeen = collectUpdates(runner);
    const dashSeen = collectUpdates(dashboard);
    await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 1, patch: { title: 'hello' } });
    await waitFor(() => dashSeen.length > 0, 2000, 'dashboard update');
    expect(dashSeen[0]!.body).toMatchObject({ t: 'update-session', metadata: { version: 2, value: { title: 'hello', claudeSessionId: 'claude-abc' } } });
    expect(writerSeen).toEqual([]);
  });
});

describe('update-session bodies (spec section 5)', () => {
  it('carry only the fields that changed, with their stored values', async () => {
    const writer = await connectRunner(hub.url, hub.tokens.runner);
    const peer = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(writer);
    await peer.emitWithAck('session-join', { sid: session.sid });
    const seen = collectUpdates(peer);
    const sessionUpdates = () => seen.filter((e) => e.body.t === 'update-session').map((e) => e.body);

    // a patch: the stored, merged document, nothing else
    await writer.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 1, patch: { title: 'x' } });
    await waitFor(() => sessionUpdates().length >= 1, 2000, 'metadata broadcast');
    expect(sessionUpdates()[0]).toEqual({
      t: 'update-session',
      sid: session.sid,
      metadata: { version: 2, value: { ...session.metadata.value, title: 'x' } },
      agentState: null,
      lifecycle: null,
      presence: null,
      attention: null,
      // a metadata write may move the title (it does: the metadata title names the session now), nothing else derived
      title: 'x',
    });

    await writer.emitWithAck('update-state', { sid: session.sid, expectedVersion: 1, agentState: { mode: 'plan' } });
    await waitFor(() => sessionUpdates().length >= 2, 2000, 'state broadcast');
    expect(sessionUpdates()[1]).toEqual({
      t: 'update-session',
      sid: session.sid,
      metadata: null,
      agentState: { version: 2, value: { mode: 'plan' } },
      lifecycle: null,
      presence: null,
      attention: null,
    });

    // a heartbeat that starts thinking: presence only
    await writer.emitWithAck('session-alive', { sid: session.sid, time: Date.now(), thinking: true });
    await waitFor(() => sessionUpdates().length >= 3, 2000, 'presence broadcast');
    const presenceBody = sessionUpdates()[2]!;
    expect(presenceBody).toMatchObject({ t: 'update-session', sid: session.sid, metadata: null, agentState: null, lifecycle: null });
    expect(presenceBody.t === 'update-session' && presenceBody.presence).toMatchObject({ active: true, thinking: true });
  });
});
