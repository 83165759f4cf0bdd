/**
 * Spec section 6, the statements not pinned elsewhere: session-start is get-or-create by
 * (namespace, tag) and joins the socket to `session:<sid>`; presence after a finalize.
 */
import { describe, expect, it } from 'vitest';
import { collectUpdates, connectRunner, startSession, waitFor } from '../helpers/clients.js';
import { useHubWithRunner } from '../helpers/hub.js';
import { fetchSession } from '../lifecycle/http.js';

const t = useHubWithRunner();

describe('spec 6: session-start', () => {
  it('gets or creates by (namespace, tag): the same tag in two namespaces is two sessions', async () => {
    const other = await connectRunner(t.hub.url, t.hub.tokens.otherRunner);
    const start = { tag: 'shared-tag', flavor: 'claude', source: 'startup' } as const;
    const mine = await t.runner.emitWithAck('session-start', start);
    const theirs = await other.emitWithAck('session-start', start);
    if (!mine.ok || !theirs.ok) throw new Error('session-start failed');
    expect([mine.created, theirs.created]).toEqual([true, true]);
    expect(theirs.session.sid).not.toBe(mine.session.sid);
    expect([mine.session.namespace, theirs.session.namespace]).toEqual(['default', 'other']);
    const again = await other.emitWithAck('session-start', { ...start, source: 'resume' });
    expect(again.ok && [again.created, again.session.sid]).toEqual([false, theirs.session.sid]);
  });

  it("joins the socket to the session's room: another runner's write reaches it", async () => {
    const session = await startSession(t.runner);
    const seen = collectUpdates(t.runner);
    const writer = await connectRunner(t.hub.url, t.hub.tokens.runner);
    await writer.emitWithAck('session-join', { sid: session.sid });
    expect(await writer.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 1, patch: { title: 'hi' } })).toMatchObject({ result: 'success' });
    await waitFor(() => seen.some((e) => e.body.t === 'update-session' && e.body.metadata?.value.title === 'hi'), 2000, 'the write reaches the starter');
  });
});

describe('spec 6: presence after session-finalize', () => {
  it("the runner's socket disconnecting after its finalize makes the session inactive at once", async () => {
    const session = await startSession(t.runner);
    const ack = await t.runner.emitWithAck('session-finalize', { sid: session.sid, reason: 'completed' });
    expect(ack.ok && ack.session.presence.active).toBe(true);
    t.runner.disconnect();
    await waitFor(async () => (await fetchSession(t.hub, session.sid)).presence.active === false, 2000, 'inactive after the disconnect');
    expect((await fetchSession(t.hub, session.sid)).lifecycle).toMatchObject({ state: 'ended', lastRun: { status: 'success' } });
  });

  it("the finalized runner's socket, still connected, does not hold the next run: that run is lost after its grace", async () => {
    const session = await startSession(t.runner);
    await t.runner.emitWithAck('session-finalize', { sid: session.sid, reason: 'completed' });
    const next = await connectRunner(t.hub.url, t.hub.tokens.runner);
    const start = await next.emitWithAck('session-start', { tag: session.tag, flavor: 'claude', source: 'resume' });
    expect(start.ok && start.session.lifecycle.lastRun?.status).toBe('running');
    next.disconnect();
    await waitFor(async () => (await fetchSession(t.hub, session.sid)).presence.active === false, 2000, 'inactive after the new runner left');
    t.clock.advance(t.hub.deps.config.runGraceMs);
    await t.runner.emitWithAck('session-alive', { sid: session.sid, time: t.clock.now() });
    await t.hub.sweepNow();
    expect((await fetchSession(t.hub, session.sid)).lifecycle).toMatchObject({ state: 'ended', reason: 'runner_lost', lastRun: { status: 'interrupted' } });
  });
});
