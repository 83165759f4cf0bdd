/**
 * What `session-start` does where spec section 6 leaves room (written down in
 * docs/protocol-choices.md): the sid hint, metadata sent for an existing session, reopening.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeAllClients, connectRunner, startSession } from '../helpers/clients.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub();
});
afterEach(() => closeAllClients());
afterAll(async () => {
  await hub.close();
});

async function history(sid: string) {
  const response = await fetch(`${hub.url}/api/sessions/${sid}/history`, { headers: { authorization: `Bearer ${hub.tokens.runner}` } });
  return ((await response.json()) as { history: { version: number; by: string; carried: string[]; cleared: string[]; dropped: string[]; metadata: unknown }[] }).history;
}

describe('session-start', () => {
  it('picks the session a sid hint names in the namespace, over the tag; the session keeps its own tag', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const first = await startSession(runner, { tag: 'hint-a' });
    const second = await startSession(runner, { tag: 'hint-b' });
    const ack = await runner.emitWithAck('session-start', { tag: 'hint-b', flavor: 'claude', source: 'resume', sid: first.sid });
    expect(ack).toMatchObject({ ok: true, created: false, session: { sid: first.sid, tag: 'hint-a' } });
    expect(second.sid).not.toBe(first.sid);
  });

  it('ignores a sid hint that names no session of the namespace: get-or-create by tag, with a sid of the hub\'s choosing', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const byTag = await startSession(runner, { tag: 'hint-c' });
    const made = 'made-up-sid-0001';
    expect(await runner.emitWithAck('session-start', { tag: 'hint-c', flavor: 'claude', source: 'resume', sid: made })).toMatchObject({ ok: true, created: false, session: { sid: byTag.sid } });
    const fresh = await runner.emitWithAck('session-start', { tag: 'hint-d', flavor: 'claude', source: 'startup', sid: made });
    expect(fresh).toMatchObject({ ok: true, created: true });
    expect(fresh.ok && fresh.session.sid).not.toBe(made);
  });

  it('applies metadata sent for an existing session as a merge patch, and writes no version when it changes nothing', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner, { tag: 'patchy', metadata: { path: '/p', host: 'h', claudeSessionId: 'c1', title: 't' } });
    const again = await runner.emitWithAck('session-start', { tag: 'patchy', flavor: 'claude', source: 'resume', metadata: { host: 'h2', title: null, claudeSessionId: null } });
    expect(again).toMatchObject({ ok: true, created: false, session: { metadata: { version: 2, value: { path: '/p', host: 'h2' } } } });
    const same = await runner.emitWithAck('session-start', { tag: 'patchy', flavor: 'claude', source: 'resume', metadata: { host: 'h2' } });
    expect(same).toMatchObject({ ok: true, session: { metadata: { version: 2 } } });
    expect(await history(session.sid)).toMatchObject([
      { version: 1, by: 'runner', carried: [], cleared: [], dropped: [] },
      { version: 2, by: 'runner', carried: [], cleared: ['claudeSessionId'], dropped: [], metadata: { path: '/p', host: 'h2' } },
    ]);
  });

  it('reopens an archived or ended session as running, by runner, with the source as reason, and takes the new flavor', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner, { tag: 'reopen', metadata: { claudeSessionId: 'c1' } });
    expect(await runner.emitWithAck('session-archive', { sid: session.sid, reason: 'done' })).toMatchObject({ ok: true, session: { lifecycle: { state: 'archived' } } });
    const reopened = await runner.emitWithAck('session-start', { tag: 'reopen', flavor: 'codex', source: 'resume' });
    expect(reopened).toMatchObject({
      ok: true,
      created: false,
      session: { sid: session.sid, flavor: 'codex', lifecycle: { state: 'running', reason: 'resume', by: 'runner', lastRun: { status: 'running' } }, metadata: { value: { claudeSessionId: 'c1' } } },
    });
    expect(await runner.emitWithAck('session-end', { sid: session.sid, reason: 'completed' })).toMatchObject({ ok: true, session: { lifecycle: { state: 'ended' } } });
    expect(await runner.emitWithAck('session-start', { tag: 'reopen', flavor: 'codex', source: 'startup' })).toMatchObject({ ok: true, session: { lifecycle: { state: 'running', reason: 'startup' } } });
  });

  it('links a clear/compact child to its parent, ignores parentSid for other sources, and answers not_found for a missing parent', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const parent = await startSession(runner, { tag: 'parent' });
    const unlinked = await runner.emitWithAck('session-start', { tag: 'not-a-child', flavor: 'claude', source: 'startup', parentSid: parent.sid });
    expect(unlinked).toMatchObject({ ok: true, session: { parentSid: null } });
    const child = await runner.emitWithAck('session-start', { tag: 'child', flavor: 'claude', source: 'compact', parentSid: parent.sid });
    expect(child).toMatchObject({ ok: true, created: true, session: { parentSid: parent.sid } });
    const rows = await history(parent.sid);
    expect(rows.at(-1)).toMatchObject({ version: 2, by: 'hub', carried: [], metadata: { hubSupersededBy: child.ok && child.session.sid } });
    expect(await runner.emitWithAck('session-start', { tag: 'orphan', flavor: 'claude', source: 'clear', parentSid: 'no-such-parent' })).toEqual({
      ok: false,
      error: { code: 'not_found', message: expect.stringMatching(/no-such-parent/) },
    });
  });
});
