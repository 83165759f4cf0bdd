/**
 * Spec sections 1, 2, 3 and 12 at the socket edge: every bad payload gets its error ack (or a server
 * `error` event when it came without a callback), no rejected event changes a row, and the hub keeps
 * serving. Also the handshake refusals, requestId idempotency, update-state replacement and
 * namespace isolation.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServerErrorEvent } from '../../shared/protocol/broadcast.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import {
  closeAllClients,
  collectUpdates,
  connectDashboard,
  connectRunner,
  handshakeError,
  startSession,
  waitFor,
  type RunnerSocket,
} from '../helpers/clients.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

async function getJson(hub: TestHub, path: string, token: string = hub.tokens.runner): Promise<{ status: number; body: any }> {
  const response = await fetch(`${hub.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: await response.json() };
}

async function snapshot(hub: TestHub, sid: string): Promise<SessionSnapshot> {
  const { status, body } = await getJson(hub, `/api/sessions/${sid}`);
  expect(status).toBe(200);
  return body as SessionSnapshot;
}

/** The parts of a session a rejected write must leave alone. */
async function versionedState(hub: TestHub, sid: string) {
  const s = await snapshot(hub, sid);
  const history = await getJson(hub, `/api/sessions/${sid}/history`);
  return { metadata: s.metadata, agentState: s.agentState, history: history.body.history.length };
}

/** Sends an event with raw arguments (bypassing the typed client) and waits for its ack. */
function emitRaw(socket: RunnerSocket | Awaited<ReturnType<typeof connectDashboard>>, event: string, ...args: unknown[]): Promise<any> {
  return (socket as unknown as { timeout(ms: number): { emitWithAck(e: string, ...a: unknown[]): Promise<unknown> } }).timeout(5000).emitWithAck(event, ...args);
}

function nextServerError(socket: { once(event: 'error', fn: (e: ServerErrorEvent) => void): unknown }): Promise<ServerErrorEvent> {
  return new Promise((resolve) => socket.once('error', resolve));
}

const kib = (n: number) => 'x'.repeat(n * 1024);

describe('bad payloads', () => {
  let hub: TestHub;
  let runner: RunnerSocket;
  let session: SessionSnapshot;
  beforeAll(async () => {
    hub = await startTestHub();
    runner = await connectRunner(hub.url, hub.tokens.runner);
    session = await startSession(runner, { metadata: { path: '/p', claudeSessionId: 'c1' } });
  });
  afterAll(async () => {
    closeAllClients();
    await hub.close();
  });

  /** Asserts the ack, that nothing about the session changed, and that a good write still works after. */
  async function rejects(event: string, payload: unknown, code: string, field: RegExp, kind: 'versioned' | 'ok' = 'versioned') {
    const before = await versionedState(hub, session.sid);
    const ack = await emitRaw(runner, event, payload);
    if (kind === 'versioned') {
      expect(ack).toEqual({ result: 'error', code, message: expect.stringMatching(field) });
    } else {
      expect(ack).toEqual({ ok: false, error: { code, message: expect.stringMatching(field) } });
    }
    expect(await versionedState(hub, session.sid)).toEqual(before);
    expect(runner.connected).toBe(true);
  }

  afterEach(async () => {
    // the hub keeps serving this very socket after each rejection
    const current = await snapshot(hub, session.sid);
    const ack = await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: current.metadata.version, patch: { probe: current.metadata.version } });
    expect(ack).toMatchObject({ result: 'success', version: current.metadata.version + 1 });
  });

  it.each([
    ['sid of the wrong type', { sid: 42, expectedVersion: 1, metadata: {} }, /^sid: /],
    ['missing sid', { expectedVersion: 1, metadata: {} }, /^sid: /],
    ['missing expectedVersion', { sid: 'SID', metadata: {} }, /^expectedVersion: /],
    ['fractional expectedVersion', { sid: 'SID', expectedVersion: 1.5, metadata: {} }, /^expectedVersion: /],
    ['expectedVersion 0', { sid: 'SID', expectedVersion: 0, metadata: {} }, /^expectedVersion: /],
    ['expectedVersion as a string', { sid: 'SID', expectedVersion: '1', metadata: {} }, /^expectedVersion: /],
    ['metadata that is not an object', { sid: 'SID', expectedVersion: 1, metadata: 'x' }, /^metadata: /],
    ['metadata that is an array', { sid: 'SID', expectedVersion: 1, metadata: [1] }, /^metadata: /],
    ['patch that is not an object', { sid: 'SID', expectedVersion: 1, patch: 7 }, /^patch: /],
    ['both metadata and patch', { sid: 'SID', expectedVersion: 1, metadata: { a: 1 }, patch: { a: 2 } }, /^patch: exactly one of metadata and patch/],
    ['neither metadata nor patch', { sid: 'SID', expectedVersion: 1 }, /^metadata: exactly one of metadata and patch/],
    ['an empty requestId', { sid: 'SID', expectedVersion: 1, metadata: {}, requestId: '' }, /^requestId: /],
    ['a payload that is not an object', 'hello', /^payload: /],
    ['no payload at all', undefined, /^payload: /],
  ])('update-metadata with %s answers invalid_payload naming the field', async (_, payload, field) => {
    const withSid = payload && typeof payload === 'object' && (payload as { sid?: unknown }).sid === 'SID' ? { ...payload, sid: session.sid } : payload;
    const current = await snapshot(hub, session.sid);
    const fixed = withSid && typeof withSid === 'object' && (withSid as { expectedVersion?: unknown }).expectedVersion === 1 ? { ...withSid, expectedVersion: current.metadata.version } : withSid;
    await rejects('update-metadata', fixed, 'invalid_payload', field);
  });

  it('rejects a __proto__ key at the top level or nested, for metadata, patch and agentState', async () => {
    const current = await snapshot(hub, session.sid);
    const proto = (inner: string) => JSON.parse(`{${inner}}`);
    await rejects('update-metadata', { sid: session.sid, expectedVersion: current.metadata.version, metadata: proto('"__proto__": {"polluted": true}') }, 'invalid_payload', /^metadata\.__proto__: /);
    await rejects('update-metadata', { sid: session.sid, expectedVersion: current.metadata.version, patch: proto('"a": {"__proto__": {"polluted": true}}') }, 'invalid_payload', /^patch\.a\.__proto__: /);
    await rejects('update-state', { sid: session.sid, expectedVersion: current.agentState.version, agentState: proto('"__proto__": {"x": 1}') }, 'invalid_payload', /^agentState\.__proto__: /);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('rejects update-state with an agentState that is not an object or null', async () => {
    const current = await snapshot(hub, session.sid);
    await rejects('update-state', { sid: session.sid, expectedVersion: current.agentState.version, agentState: [1, 2] }, 'invalid_payload', /^agentState: /);
    await rejects('update-state', { sid: session.sid, expectedVersion: current.agentState.version }, 'invalid_payload', /^agentState: /);
  });

  it('answers not_found for an unknown sid, for every event that takes one', async () => {
    await rejects('update-metadata', { sid: 'no-such-session', expectedVersion: 1, metadata: {} }, 'not_found', /no-such-session/);
    await rejects('update-state', { sid: 'no-such-session', expectedVersion: 1, agentState: null }, 'not_found', /no-such-session/);
    for (const [event, payload] of [
      ['session-join', { sid: 'no-such-session' }],
      ['prompt-submit', { sid: 'no-such-session', prompt: 'hi' }],
      ['tool-use', { sid: 'no-such-session', tool: 'Bash' }],
      ['turn-stop', { sid: 'no-such-session' }],
      ['session-end', { sid: 'no-such-session' }],
      ['session-finalize', { sid: 'no-such-session' }],
      ['session-archive', { sid: 'no-such-session', reason: 'x' }],
      ['session-alive', { sid: 'no-such-session', time: Date.now() }],
    ] as const) {
      await rejects(event, payload, 'not_found', /no-such-session/, 'ok');
    }
  });

  it.each([
    ['session-start without tag', 'session-start', { flavor: 'claude', source: 'startup' }, /^tag: /],
    ['session-start with an unknown source', 'session-start', { tag: 't', flavor: 'claude', source: 'reboot' }, /^source: /],
    ['session-start with an empty flavor', 'session-start', { tag: 't', flavor: '', source: 'startup' }, /^flavor: /],
    ['session-start with metadata not an object', 'session-start', { tag: 't', flavor: 'claude', source: 'startup', metadata: 'x' }, /^metadata: /],
    ['prompt-submit without prompt', 'prompt-submit', { sid: 'SID' }, /^prompt: /],
    ['tool-use with a numeric tool', 'tool-use', { sid: 'SID', tool: 5 }, /^tool: /],
    ['turn-stop with an unknown status', 'turn-stop', { sid: 'SID', status: 'weird' }, /^status: /],
    ['session-archive without reason', 'session-archive', { sid: 'SID' }, /^reason: /],
    ['session-alive with time as a string', 'session-alive', { sid: 'SID', time: 'now' }, /^time: /],
    ['session-join with a negative sinceSeq', 'session-join', { sid: 'SID', sinceSeq: -1 }, /^sinceSeq: /],
    ['resume-failed with an unknown stage', 'resume-failed', { sid: 'SID', tokenKey: 'claudeSessionId', token: 'c1', stage: 'later', emitted: false, aborted: false }, /^stage: /],
  ])('%s answers invalid_payload naming the field', async (_, event, payload, field) => {
    const withSid = (payload as { sid?: string }).sid === 'SID' ? { ...payload, sid: session.sid } : payload;
    await rejects(event, withSid, 'invalid_payload', field, 'ok');
  });

  it('answers payload_too_large for a 200 KiB document instead of disconnecting, and writes nothing', async () => {
    const current = await snapshot(hub, session.sid);
    const big = { blob: kib(200) };
    await rejects('update-metadata', { sid: session.sid, expectedVersion: current.metadata.version, metadata: big }, 'payload_too_large', /metadata/);
    await rejects('update-metadata', { sid: session.sid, expectedVersion: current.metadata.version, patch: big }, 'payload_too_large', /patch/);
    await rejects('update-state', { sid: session.sid, expectedVersion: current.agentState.version, agentState: big }, 'payload_too_large', /agentState/);
    await rejects('session-start', { tag: 'big', flavor: 'claude', source: 'startup', metadata: big }, 'payload_too_large', /metadata/, 'ok');
    // the spec's floor for the transport is 1 MiB: a frame that large is still answered
    await rejects('update-metadata', { sid: session.sid, expectedVersion: current.metadata.version, metadata: { blob: kib(1024) } }, 'payload_too_large', /metadata/);
    const list = await getJson(hub, '/api/sessions');
    expect(list.body.sessions.map((s: SessionSnapshot) => s.tag)).not.toContain('big');
  });

  it('accepts a document just under 64 KiB and rejects a patch that would grow the stored one past it', async () => {
    const current = await snapshot(hub, session.sid);
    const ack = await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: current.metadata.version, patch: { blob: kib(40) } });
    expect(ack).toMatchObject({ result: 'success', version: current.metadata.version + 1 });
    await rejects('update-metadata', { sid: session.sid, expectedVersion: current.metadata.version + 1, patch: { blob2: kib(40) } }, 'payload_too_large', /metadata/);
    const cleanup = await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: current.metadata.version + 1, patch: { blob: null } });
    expect(cleanup).toMatchObject({ result: 'success' });
  });

  it('answers a failed event sent without an ack callback with a server error event', async () => {
    const before = await versionedState(hub, session.sid);
    let error = nextServerError(runner);
    (runner as unknown as { emit(event: string, payload: unknown): void }).emit('update-metadata', { sid: session.sid, expectedVersion: 'x', metadata: {} });
    expect(await error).toEqual({ code: 'invalid_payload', message: expect.stringMatching(/^expectedVersion: /), event: 'update-metadata' });
    error = nextServerError(runner);
    runner.emit('session-alive', { sid: 'no-such-session', time: Date.now() });
    expect(await error).toEqual({ code: 'not_found', message: expect.stringMatching(/no-such-session/), event: 'session-alive' });
    expect(await versionedState(hub, session.sid)).toEqual(before);
  });

  it('answers a runner event sent on /dashboard with forbidden, and an unknown event with invalid_payload', async () => {
    const before = await versionedState(hub, session.sid);
    const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
    const forbidden = { code: 'forbidden', message: expect.stringMatching(/update-metadata/) };
    expect(await emitRaw(dashboard, 'update-metadata', { sid: session.sid, expectedVersion: before.metadata.version, metadata: {} })).toEqual({ result: 'error', ...forbidden });
    expect(await emitRaw(dashboard, 'session-start', { tag: 'from-dashboard', flavor: 'claude', source: 'startup' })).toEqual({
      ok: false,
      error: { code: 'forbidden', message: expect.stringMatching(/session-start/) },
    });
    const admin = await connectDashboard(hub.url, hub.tokens.admin);
    expect(await emitRaw(admin, 'update-state', { sid: session.sid, expectedVersion: before.agentState.version, agentState: null })).toMatchObject({ result: 'error', code: 'forbidden' });
    expect(await emitRaw(runner, 'frobnicate', { sid: session.sid })).toEqual({ ok: false, error: { code: 'invalid_payload', message: expect.stringMatching(/frobnicate/) } });
    expect(await emitRaw(dashboard, 'frobnicate', {})).toEqual({ ok: false, error: { code: 'invalid_payload', message: expect.stringMatching(/frobnicate/) } });
    const error = nextServerError(dashboard);
    (dashboard as unknown as { emit(event: string, payload: unknown): void }).emit('prompt-submit', { sid: session.sid, prompt: 'x' });
    expect(await error).toEqual({ code: 'forbidden', message: expect.any(String), event: 'prompt-submit' });
    expect(await versionedState(hub, session.sid)).toEqual(before);
    expect(dashboard.connected).toBe(true);
  });

  it('answers invalid_payload on /dashboard too', async () => {
    const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
    expect(await emitRaw(dashboard, 'subscribe', { sids: 'all' })).toEqual({ ok: false, error: { code: 'invalid_payload', message: expect.stringMatching(/^sids: /) } });
    expect(await emitRaw(dashboard, 'subscribe', { sinceSeq: 1.5 })).toEqual({ ok: false, error: { code: 'invalid_payload', message: expect.stringMatching(/^sinceSeq: /) } });
    expect(await emitRaw(dashboard, 'unsubscribe', { sids: [1] })).toEqual({ ok: false, error: { code: 'invalid_payload', message: expect.stringMatching(/^sids\.0: /) } });
    expect(await emitRaw(dashboard, 'subscribe', {})).toMatchObject({ ok: true });
  });

  it("answers an event named 'error' like any unknown event, on both namespaces, with or without an ack", async () => {
    // socket.io itself listens to 'error' on every server socket, so it looked handled and went unanswered
    const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
    const unknown = { ok: false, error: { code: 'invalid_payload', message: expect.stringMatching(/unknown event "error"/) } };
    expect(await emitRaw(runner, 'error', { sid: session.sid })).toEqual(unknown);
    expect(await emitRaw(dashboard, 'error', {})).toEqual(unknown);
    const error = nextServerError(runner);
    (runner as unknown as { emit(event: string, payload: unknown): void }).emit('error', {});
    expect(await error).toEqual({ code: 'invalid_payload', message: expect.stringMatching(/unknown event "error"/), event: 'error' });
    expect(runner.connected && dashboard.connected).toBe(true);
  });
});

describe('rate limit', () => {
  let hub: TestHub;
  beforeAll(async () => {
    // a burst of 6 and next to no refill, so the counts below do not depend on timing
    hub = await startTestHub({ config: { rateLimitPerSecond: 0.001, rateLimitBurst: 6, tokenRateLimitPerSecond: 0.001, tokenRateLimitBurst: 6 } });
  });
  afterAll(async () => {
    closeAllClients();
    await hub.close();
  });

  it('answers rate_limited past the burst, shares the budget across one token\'s sockets, and changes nothing', async () => {
    const a = await connectRunner(hub.url, hub.tokens.runner);
    const b = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(a); // 1 of 6
    const acks = [];
    for (let i = 0; i < 7; i++) acks.push(await a.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 1 + i, patch: { n: i } }));
    expect(acks.slice(0, 5).map((ack) => ack.result)).toEqual(['success', 'success', 'success', 'success', 'success']);
    expect(acks.slice(5)).toEqual([
      { result: 'error', code: 'rate_limited', message: expect.any(String) },
      { result: 'error', code: 'rate_limited', message: expect.any(String) },
    ]);
    // the other socket of the same token has its own per-socket budget but shares the token's
    expect(await b.emitWithAck('session-join', { sid: session.sid })).toEqual({ ok: false, error: { code: 'rate_limited', message: expect.any(String) } });
    const error = nextServerError(b);
    b.emit('session-alive', { sid: session.sid, time: Date.now() });
    expect(await error).toMatchObject({ code: 'rate_limited', event: 'session-alive' });

    // read with another token: the runner token's budget, HTTP included, is spent
    const stored = (await getJson(hub, `/api/sessions/${session.sid}`, hub.tokens.dashboard)).body as SessionSnapshot;
    expect(stored.metadata).toEqual({ version: 6, value: expect.objectContaining({ n: 4 }) });
    expect(a.connected && b.connected).toBe(true);

    // another token is not affected
    const other = await connectRunner(hub.url, hub.tokens.otherRunner);
    expect(await other.emitWithAck('session-start', { tag: 't', flavor: 'claude', source: 'startup' })).toMatchObject({ ok: true });
  });
});

describe('handshake', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
  });
  afterAll(async () => {
    closeAllClients();
    await hub.close();
  });

  it('refuses a missing or unknown token with unauthorized and a dashboard token on /runner with forbidden', async () => {
    expect(await handshakeError(hub.url, '/runner', {})).toBe('unauthorized');
    expect(await handshakeError(hub.url, '/dashboard', {})).toBe('unauthorized');
    expect(await handshakeError(hub.url, '/runner', { token: 'not-a-token' })).toBe('unauthorized');
    expect(await handshakeError(hub.url, '/dashboard', { token: 'not-a-token' })).toBe('unauthorized');
    expect(await handshakeError(hub.url, '/runner', { token: 42 })).toBe('unauthorized');
    expect(await handshakeError(hub.url, '/runner', { token: hub.tokens.dashboard })).toBe('forbidden');
    expect(await handshakeError(hub.url, '/runner', { token: hub.tokens.otherDashboard })).toBe('forbidden');
    await expect(connectRunner(hub.url, hub.tokens.admin)).resolves.toBeDefined();
    await expect(connectDashboard(hub.url, hub.tokens.admin)).resolves.toBeDefined();
    await expect(connectDashboard(hub.url, hub.tokens.runner)).resolves.toBeDefined();
  });
});

describe('requestId, update-state and namespaces', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
  });
  afterEach(() => closeAllClients());
  afterAll(async () => {
    await hub.close();
  });

  it('answers a retried requestId with the version and value it produced, and writes nothing again', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const watcher = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner, { metadata: { path: '/p', claudeSessionId: 'c1' } });
    await watcher.emitWithAck('session-join', { sid: session.sid });
    const seen = collectUpdates(watcher);

    const first = await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 1, metadata: { title: 'a' }, requestId: 'req-1' });
    expect(first).toEqual({ result: 'success', version: 2, metadata: { title: 'a', path: '/p', claudeSessionId: 'c1' } });
    const retry = await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 1, metadata: { title: 'a' }, requestId: 'req-1' });
    expect(retry).toEqual(first);
    // still the same answer after a later write moved the document on
    expect(await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 2, patch: { title: 'b' } })).toMatchObject({ version: 3 });
    expect(await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 1, metadata: { other: 1 }, requestId: 'req-1' })).toEqual(first);

    const s1 = await runner.emitWithAck('update-state', { sid: session.sid, expectedVersion: 1, agentState: { busy: true }, requestId: 'req-1' });
    expect(s1).toEqual({ result: 'success', version: 2, agentState: { busy: true } });
    expect(await runner.emitWithAck('update-state', { sid: session.sid, expectedVersion: 1, agentState: { busy: true }, requestId: 'req-1' })).toEqual(s1);
    expect(await runner.emitWithAck('update-state', { sid: session.sid, expectedVersion: 2, agentState: null, requestId: 'req-2' })).toEqual({ result: 'success', version: 3, agentState: null });
    expect(await runner.emitWithAck('update-state', { sid: session.sid, expectedVersion: 2, agentState: null, requestId: 'req-2' })).toEqual({ result: 'success', version: 3, agentState: null });

    const stored = await snapshot(hub, session.sid);
    expect(stored.metadata).toEqual({ version: 3, value: { title: 'b', path: '/p', claudeSessionId: 'c1' } });
    expect(stored.agentState).toEqual({ version: 3, value: null });
    expect((await getJson(hub, `/api/sessions/${session.sid}/history`)).body.history.map((r: { version: number }) => r.version)).toEqual([1, 2, 3]);
    // the watcher saw one update per real write: metadata v2, v3, agentState v2, v3
    await waitFor(() => seen.length >= 4, 2000, 'broadcasts');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const versions = seen.map((e) => (e.body.t === 'update-session' ? [e.body.metadata?.version ?? null, e.body.agentState?.version ?? null] : e.body.t));
    expect(versions).toEqual([[2, null], [3, null], [null, 2], [null, 3]]);
  });

  it('replaces agentState whole on update-state, null included', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner);
    expect(session.agentState).toEqual({ version: 1, value: null });
    expect(await runner.emitWithAck('update-state', { sid: session.sid, expectedVersion: 1, agentState: { a: 1, nested: { b: 2 } } })).toEqual({ result: 'success', version: 2, agentState: { a: 1, nested: { b: 2 } } });
    expect(await runner.emitWithAck('update-state', { sid: session.sid, expectedVersion: 2, agentState: { nested: { c: 3 } } })).toEqual({ result: 'success', version: 3, agentState: { nested: { c: 3 } } });
    expect(await runner.emitWithAck('update-state', { sid: session.sid, expectedVersion: 2, agentState: {} })).toEqual({ result: 'version-mismatch', version: 3, agentState: { nested: { c: 3 } } });
    expect(await runner.emitWithAck('update-state', { sid: session.sid, expectedVersion: 3, agentState: null })).toEqual({ result: 'success', version: 4, agentState: null });
    expect((await snapshot(hub, session.sid)).agentState).toEqual({ version: 4, value: null });
  });

  it('keeps tenants apart: another namespace\'s sid answers exactly like an unknown one, and nothing leaks', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const otherRunner = await connectRunner(hub.url, hub.tokens.otherRunner);
    const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
    const otherDashboard = await connectDashboard(hub.url, hub.tokens.otherDashboard);
    const session = await startSession(runner, { tag: 'shared-tag', metadata: { path: '/secret', claudeSessionId: 'c1' } });
    const before = await versionedState(hub, session.sid);

    const unknown = 'a4b1c2d3-0000-4000-8000-000000000000';
    const normalize = (ack: unknown, sid: string) => JSON.parse(JSON.stringify(ack).replaceAll(sid, '<sid>'));
    const cases: [string, (sid: string) => unknown][] = [
      ['update-metadata', (sid) => ({ sid, expectedVersion: 1, metadata: { path: '/stolen' } })],
      ['update-metadata', (sid) => ({ sid, expectedVersion: 1, patch: { claudeSessionId: null } })],
      ['update-state', (sid) => ({ sid, expectedVersion: 1, agentState: { x: 1 } })],
      ['session-join', (sid) => ({ sid })],
      ['prompt-submit', (sid) => ({ sid, prompt: 'hi' })],
      ['tool-use', (sid) => ({ sid, tool: 'Bash' })],
      ['turn-stop', (sid) => ({ sid })],
      ['usage', (sid) => ({ sid, usage: [{ model: 'm', inputTokens: 1, outputTokens: 1 }] })],
      ['session-end', (sid) => ({ sid })],
      ['session-archive', (sid) => ({ sid, reason: 'x' })],
      ['session-alive', (sid) => ({ sid, time: Date.now() })],
      ['resume-failed', (sid) => ({ sid, tokenKey: 'claudeSessionId', token: 'c1', stage: 'resume', emitted: false, aborted: false })],
    ];
    for (const [event, payload] of cases) {
      const foreign = await emitRaw(otherRunner, event, payload(session.sid));
      const missing = await emitRaw(otherRunner, event, payload(unknown));
      expect(normalize(foreign, session.sid), event).toEqual(normalize(missing, unknown));
      expect(JSON.stringify(foreign), event).toMatch(/not_found/);
    }
    expect(normalize(await emitRaw(otherRunner, 'session-start', { tag: 'x', flavor: 'claude', source: 'clear', parentSid: session.sid }), session.sid)).toEqual(
      normalize(await emitRaw(otherRunner, 'session-start', { tag: 'x', flavor: 'claude', source: 'clear', parentSid: unknown }), unknown),
    );
    const foreignHttp = await getJson(hub, `/api/sessions/${session.sid}`, hub.tokens.otherRunner);
    const missingHttp = await getJson(hub, `/api/sessions/${unknown}`, hub.tokens.otherRunner);
    expect(foreignHttp.status).toBe(404);
    expect(normalize(foreignHttp.body, session.sid)).toEqual(normalize(missingHttp.body, unknown));
    expect(await versionedState(hub, session.sid)).toEqual(before);

    // the same tag in another namespace is another session; a sid hint from another namespace is ignored
    const theirs = await emitRaw(otherRunner, 'session-start', { tag: 'shared-tag', flavor: 'claude', source: 'startup', sid: session.sid });
    expect(theirs).toMatchObject({ ok: true, created: true, session: { namespace: 'other', tag: 'shared-tag' } });
    expect(theirs.session.sid).not.toBe(session.sid);
    expect(theirs.session.metadata.value).toEqual({});

    // dashboards see only their own namespace, in snapshots and in live updates
    const mine = await dashboard.emitWithAck('subscribe', {});
    const sub = await otherDashboard.emitWithAck('subscribe', {});
    const subBySid = await otherDashboard.emitWithAck('subscribe', { sids: [session.sid] });
    expect(mine.ok && mine.sessions.map((s) => s.sid)).toContain(session.sid);
    expect(sub.ok && sub.sessions.map((s) => s.namespace)).toEqual(['other']);
    expect(subBySid).toMatchObject({ ok: true, sessions: [] });
    const mineSeen = collectUpdates(dashboard);
    const otherSeen = collectUpdates(otherDashboard);
    const otherRunnerSeen = collectUpdates(otherRunner);
    expect(await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 1, patch: { title: 'private' } })).toMatchObject({ result: 'success' });
    expect(await otherRunner.emitWithAck('update-metadata', { sid: theirs.session.sid, expectedVersion: 1, patch: { title: 'theirs' } })).toMatchObject({ result: 'success' });
    await waitFor(() => mineSeen.length > 0 && otherSeen.length > 0, 2000, 'updates');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(mineSeen.map((e) => e.body.sid)).toEqual([session.sid]);
    expect(otherSeen.map((e) => e.body.sid)).toEqual([theirs.session.sid]);
    expect(otherRunnerSeen).toEqual([]);
  });
});
