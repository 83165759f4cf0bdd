import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeAllClients, collectUpdates, connectDashboard, connectRunner, startSession, waitFor } from '../helpers/clients.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

let hub: TestHub;
beforeEach(async () => {
  hub = await startTestHub();
});
afterEach(async () => {
  closeAllClients();
  await hub.close();
});

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
