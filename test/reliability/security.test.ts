import { describe, expect, it } from 'vitest';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import { closeAllClients, collectUpdates, connectDashboard, connectRunner, handshakeError, startSession, waitFor } from '../helpers/clients.js';
import { spawnHub, stopHubsAfterEach, type HubProcess } from '../helpers/hub-process.js';
import { TEST_TOKENS } from '../helpers/tokens.js';

const BAD_TOKEN = 'not-a-real-token-but-secret-9f8e7d';

let hub: HubProcess | undefined;
stopHubsAfterEach();

function call(url: string, path: string, token: string, method: 'GET' | 'POST' = 'GET', body?: unknown) {
  return fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

describe('security', () => {
  it('never logs a token, even at debug level, for good and bad handshakes and bearer calls', async () => {
    hub = await spawnHub({ env: { LOG_LEVEL: 'debug' } });
    const runner = await connectRunner(hub.url, TEST_TOKENS.runner);
    const session = await startSession(runner);
    await connectDashboard(hub.url, TEST_TOKENS.dashboard);
    await connectRunner(hub.url, TEST_TOKENS.admin);
    expect(await handshakeError(hub.url, '/runner', { token: BAD_TOKEN })).toBe('unauthorized');
    expect(await handshakeError(hub.url, '/runner', { token: TEST_TOKENS.dashboard })).toBe('forbidden');
    expect(await handshakeError(hub.url, '/dashboard', { token: BAD_TOKEN, lastSeq: 3 })).toBe('unauthorized');
    expect((await call(hub.url, `/api/sessions/${session.sid}`, TEST_TOKENS.runner)).status).toBe(200);
    expect((await call(hub.url, '/api/sessions', BAD_TOKEN)).status).toBe(401);
    expect((await call(hub.url, `/api/sessions/${session.sid}/archive`, TEST_TOKENS.dashboard, 'POST', { reason: 'x' })).status).toBe(403);
    expect((await call(hub.url, `/api/sessions/${session.sid}/repair`, TEST_TOKENS.admin, 'POST', {})).status).toBe(200);
    expect((await fetch(`${hub.url}/metrics`)).status).toBe(200);
    // a token in the query (an old /?token= link; a person may paste one into an API URL)
    expect((await fetch(`${hub.url}/?token=${TEST_TOKENS.dashboard}`)).status).toBe(200);
    expect((await fetch(`${hub.url}/api/sessions?token=${TEST_TOKENS.admin}`)).status).toBe(401);
    closeAllClients();
    await hub.stop();

    const output = hub.output();
    expect(output).toContain('handshake refused');
    expect(output).toContain('"level":20'); // debug lines were written: the check covers them
    for (const token of [...Object.values(TEST_TOKENS), BAD_TOKEN]) expect(output).not.toContain(token);
  });

  it("a token of one namespace reaches nothing of another's, over sockets and HTTP", async () => {
    hub = await spawnHub();
    const owner = await connectRunner(hub.url, TEST_TOKENS.runner);
    const session = await startSession(owner);
    const intruder = await connectRunner(hub.url, TEST_TOKENS.otherAdmin);
    const otherDashboard = await connectDashboard(hub.url, TEST_TOKENS.otherDashboard);
    const seenByIntruder: UpdateEvent[] = collectUpdates(intruder);
    const seenByOther: UpdateEvent[] = collectUpdates(otherDashboard);
    const all = await otherDashboard.emitWithAck('subscribe', {});
    expect(all.ok && all.sessions).toEqual([]);
    const named = await otherDashboard.emitWithAck('subscribe', { sids: [session.sid], sinceSeq: 0 });
    expect(named.ok && named.sessions).toEqual([]);

    const notFound = { ok: false, error: { code: 'not_found' } };
    expect(await intruder.emitWithAck('session-join', { sid: session.sid })).toMatchObject(notFound);
    expect(await intruder.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 1, patch: { x: 1 } })).toMatchObject({ result: 'error', code: 'not_found' });
    expect(await intruder.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'p' })).toMatchObject(notFound);
    expect(await intruder.emitWithAck('session-archive', { sid: session.sid, reason: 'x' })).toMatchObject(notFound);
    // a start with the same tag in the other namespace is a different session
    const theirs = await intruder.emitWithAck('session-start', { tag: session.tag, flavor: 'claude', source: 'startup' });
    expect(theirs.ok && theirs.session.sid).not.toBe(session.sid);

    for (const token of [TEST_TOKENS.otherRunner, TEST_TOKENS.otherDashboard, TEST_TOKENS.otherAdmin]) {
      for (const path of ['', '/history', '/turns']) expect((await call(hub.url, `/api/sessions/${session.sid}${path}`, token)).status).toBe(404);
      const list = await (await call(hub.url, '/api/sessions', token)).json();
      expect(list.sessions.map((s: { sid: string }) => s.sid)).not.toContain(session.sid);
    }
    expect((await call(hub.url, `/api/sessions/${session.sid}/archive`, TEST_TOKENS.otherAdmin, 'POST', { reason: 'x' })).status).toBe(404);
    expect((await call(hub.url, `/api/sessions/${session.sid}/resume`, TEST_TOKENS.otherRunner, 'POST', {})).status).toBe(404);
    expect((await call(hub.url, `/api/sessions/${session.sid}/repair`, TEST_TOKENS.otherAdmin, 'POST', {})).status).toBe(404);

    // the owner's writes never reach the other namespace
    await owner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 1, patch: { secret: 's' } });
    const probe = await connectDashboard(hub.url, TEST_TOKENS.dashboard);
    const probeSeen = collectUpdates(probe);
    await probe.emitWithAck('subscribe', { sinceSeq: 0 });
    await waitFor(() => probeSeen.some((e) => e.body.t === 'update-session' && e.body.metadata?.value.secret === 's'), 3000, 'owner replay');
    expect(seenByIntruder.filter((e) => e.body.sid === session.sid)).toEqual([]);
    expect(seenByOther.filter((e) => e.body.sid === session.sid)).toEqual([]);
    const stored = await (await call(hub.url, `/api/sessions/${session.sid}`, TEST_TOKENS.runner)).json();
    expect(stored.lifecycle.state).toBe('running');
    expect(stored.metadata.version).toBe(2);
  });

  it('a dashboard token changes nothing: refused on /runner, 403 on every HTTP write', async () => {
    hub = await spawnHub();
    const runner = await connectRunner(hub.url, TEST_TOKENS.runner);
    const session = await startSession(runner);
    const before = await (await call(hub.url, `/api/sessions/${session.sid}`, TEST_TOKENS.dashboard)).json();

    expect(await handshakeError(hub.url, '/runner', { token: TEST_TOKENS.dashboard })).toBe('forbidden');
    for (const [path, body] of [
      ['/resume', {}],
      ['/resume', { policy: 'force' }],
      ['/archive', { reason: 'x' }],
      ['/repair', {}],
    ] as const) {
      const response = await call(hub.url, `/api/sessions/${session.sid}${path}`, TEST_TOKENS.dashboard, 'POST', body);
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ error: 'forbidden' });
    }
    const after = await (await call(hub.url, `/api/sessions/${session.sid}`, TEST_TOKENS.dashboard)).json();
    expect(after).toEqual(before);
    const history = await (await call(hub.url, `/api/sessions/${session.sid}/history`, TEST_TOKENS.dashboard)).json();
    expect(history.history).toHaveLength(1);
  });

  it('refuses oversized frames and floods without hurting other clients', async () => {
    hub = await spawnHub();
    const flooder = await connectRunner(hub.url, TEST_TOKENS.runner);
    // another token: the per-token bucket is the flooder's alone
    const bystander = await connectRunner(hub.url, TEST_TOKENS.admin);
    const flooded = await startSession(flooder);
    const quiet = await startSession(bystander);
    const sid = quiet.sid;
    let version = quiet.metadata.version;

    // a flood of 3,000 events from one socket: the excess is answered rate_limited
    const flood = Array.from({ length: 3000 }, (_, i) =>
      flooder.timeout(30_000).emitWithAck('update-metadata', { sid: flooded.sid, expectedVersion: 1, patch: { i } }).catch(() => ({ result: 'lost' })),
    );
    for (let i = 0; i < 20; i++) {
      const ack = await bystander.emitWithAck('update-metadata', { sid, expectedVersion: version, patch: { i } });
      expect(ack.result).toBe('success');
      if (ack.result === 'success') version = ack.version;
    }
    const floodAcks = await Promise.all(flood);
    const limited = floodAcks.filter((a) => (a as { code?: string }).code === 'rate_limited').length;
    expect(limited).toBeGreaterThan(0);
    expect(floodAcks.filter((a) => a.result === 'lost')).toEqual([]);

    // a frame over the 2 MiB transport limit closes only that socket
    const disconnected = new Promise<string>((resolve) => flooder.once('disconnect', (reason) => resolve(reason)));
    flooder.emit('update-metadata', { sid: flooded.sid, expectedVersion: 1, patch: { big: 'x'.repeat(3 * 1024 * 1024) } }, () => {});
    expect(await disconnected).toBe('transport close');
    const ack = await bystander.emitWithAck('update-metadata', { sid, expectedVersion: version, patch: { after: 'oversized' } });
    expect(ack.result).toBe('success');
    expect((await fetch(`${hub.url}/healthz`)).status).toBe(200);
  });
});
