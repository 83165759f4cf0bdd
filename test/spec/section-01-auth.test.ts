/**
 * Spec section 1, the statements no other suite pinned: `admin` may do everything the runner and the
 * dashboard roles may, on both namespaces (and writes as `by: 'user'`: docs/protocol-choices.md).
 */
import { describe, expect, it } from 'vitest';
import { collectUpdates, connectDashboard, connectRunner, startSession, waitFor } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';

let hub: TestHub;
useTestHub((started) => (hub = started));

describe('spec 1: the admin role', () => {
  it('writes on /runner like a runner, and reads on /dashboard like a dashboard', async () => {
    const admin = await connectRunner(hub.url, hub.tokens.admin);
    const peer = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(admin, { metadata: { path: '/p' } });
    expect(await peer.emitWithAck('session-join', { sid: session.sid })).toMatchObject({ ok: true });
    const peerSeen = collectUpdates(peer);

    expect(await admin.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 1, patch: { title: 'by admin' } })).toEqual({
      result: 'success',
      version: 2,
      metadata: { path: '/p', title: 'by admin' },
    });
    expect(await admin.emitWithAck('update-state', { sid: session.sid, expectedVersion: 1, agentState: { a: 1 } })).toMatchObject({ result: 'success', version: 2 });
    expect(await admin.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'hi' })).toMatchObject({ ok: true });
    expect(await admin.emitWithAck('session-alive', { sid: session.sid, time: Date.now() })).toEqual({ ok: true });
    await waitFor(() => peerSeen.some((e) => e.body.t === 'turn'), 2000, 'the admin writes reach the room');

    const history = await fetch(`${hub.url}/api/sessions/${session.sid}/history`, { headers: { authorization: `Bearer ${hub.tokens.admin}` } });
    expect(((await history.json()) as { history: { version: number; by: string }[] }).history.find((row) => row.version === 2)).toMatchObject({ by: 'user' });

    const dashboard = await connectDashboard(hub.url, hub.tokens.admin);
    const sub = await dashboard.emitWithAck('subscribe', {});
    expect(sub.ok && sub.sessions.map((s) => s.sid)).toEqual([session.sid]);
    const seen = collectUpdates(dashboard);
    await peer.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 2, patch: { title: 'by runner' } });
    await waitFor(() => seen.length > 0, 2000, 'the admin dashboard update');
    expect(seen[0]!.body).toMatchObject({ t: 'update-session', sid: session.sid, metadata: { version: 3 } });
  });
});
