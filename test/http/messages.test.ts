/**
 * A person's messages to the agent (docs/messages.md) on a real hub: queued over real HTTP by an
 * operator or admin, read by any token of the tenant, cancelled while queued; every change broadcast
 * live to dashboards and replayed from the log; runner sockets get `message` with an ack and their
 * `{ ok: true }` marks it delivered; queued ones go to a runner that joins; the sweep expires old
 * ones visibly. Bad input (roles, tenants, unknown ids, empty, oversized, control characters,
 * cancelling twice or after delivery): a clear error, nothing queued or changed.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import type { Message, MessagesResponse, RunnerMessagePayload } from '../../shared/protocol/messages.js';
import { MESSAGE_MAX_BYTES } from '../../shared/protocol/messages.js';
import { ManualClock } from '../../hub/clock.js';
import { collectUpdates, connectDashboard, connectRunner, startSession, testTaker, waitFor, type RunnerSocket } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';

let hub: TestHub;
let runner: RunnerSocket;
let clock: ManualClock;
useTestHub(async (started) => {
  hub = started;
  runner = await connectRunner(hub.url, hub.tokens.runner);
}, () => ({ clock: (clock = new ManualClock(1_700_000_000_000)), config: { messageTtlMs: 60_000 } }));

const tokenId = (token: string) => createHash('sha256').update(token).digest('hex').slice(0, 12);

async function http(method: 'GET' | 'POST' | 'DELETE', path: string, token: string, body?: unknown) {
  const response = await fetch(`${hub.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const send = (sid: string, body: unknown, token: string = hub.tokens.operator) => http('POST', `/api/sessions/${sid}/messages`, token, body);
const list = async (sid: string, token: string = hub.tokens.dashboard) => (await http('GET', `/api/sessions/${sid}/messages`, token)).body as unknown as MessagesResponse;
const cancel = (sid: string, id: string, token: string = hub.tokens.operator) => http('DELETE', `/api/sessions/${sid}/messages/${id}`, token);

describe('queue, read, cancel', () => {
  it('an operator queues a message: 201 with it queued, by the token id (never the token), broadcast live to dashboards', async () => {
    const session = await startSession(runner);
    const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
    const updates = collectUpdates(dashboard);
    await dashboard.emitWithAck('subscribe', {});

    const answer = await send(session.sid, { text: 'Yes, update the snapshots too.\n\tThanks' });
    expect(answer.status).toBe(201);
    const message = (answer.body as { message: Message }).message;
    expect(message).toEqual({
      id: expect.any(String), sid: session.sid, text: 'Yes, update the snapshots too.\n\tThanks', state: 'queued', createdAt: clock.now(),
      deliveredAt: null, endedAt: null, by: { tokenId: tokenId(hub.tokens.operator), label: null }, via: null, takenBy: null,
    });
    expect(JSON.stringify(answer.body)).not.toContain(hub.tokens.operator);
    await waitFor(() => updates.some((e) => e.body.t === 'message'), 3000, 'message broadcast');
    expect(updates.find((e) => e.body.t === 'message')!.body).toEqual({ t: 'message', sid: session.sid, message });
    // a runner socket holds the session's run: a message reaches the agent through it
    expect(await list(session.sid)).toEqual({ sid: session.sid, messages: [message], reach: 'runner' });
  });

  it('an admin queues too; GET lists oldest first for any token of the tenant (runner included)', async () => {
    const session = await startSession(runner);
    const first = (await send(session.sid, { text: 'first' }, hub.tokens.admin)).body.message as Message;
    clock.advance(5);
    const second = (await send(session.sid, { text: 'second' })).body.message as Message;
    expect(first.by.tokenId).toBe(tokenId(hub.tokens.admin));
    for (const token of [hub.tokens.dashboard, hub.tokens.runner, hub.tokens.operator]) {
      expect((await list(session.sid, token)).messages.map((m) => m.text)).toEqual(['first', 'second']);
    }
    expect(second.createdAt).toBe(first.createdAt + 5);
  });

  it('cancel while queued: 200 cancelled and broadcast; cancelling twice is 409 with the message as it stands', async () => {
    const session = await startSession(runner);
    const message = (await send(session.sid, { text: 'never mind' })).body.message as Message;
    clock.advance(7);
    const cancelled = await cancel(session.sid, message.id);
    expect(cancelled).toEqual({ status: 200, body: { message: { ...message, state: 'cancelled', endedAt: message.createdAt + 7 } } });
    const again = await cancel(session.sid, message.id);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'conflict', current: { id: message.id, state: 'cancelled' } });
    expect(String(again.body.message)).toMatch(/cancelled.*only a queued message can be cancelled/);
  });
});

describe('bad input: a clear error, nothing queued', () => {
  it('dashboard and runner tokens are 403, another tenant is 404, an unknown session is 404', async () => {
    const session = await startSession(runner);
    for (const token of [hub.tokens.dashboard, hub.tokens.runner]) {
      const refused = await send(session.sid, { text: 'hello' }, token);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toBe('forbidden');
    }
    expect((await send(session.sid, { text: 'hello' }, hub.tokens.otherOperator)).status).toBe(404);
    expect((await http('GET', `/api/sessions/${session.sid}/messages`, hub.tokens.otherDashboard)).status).toBe(404);
    expect(await send('no-such-session', { text: 'hello' })).toMatchObject({ status: 404, body: { error: 'session_not_found' } });
    expect((await list(session.sid)).messages).toEqual([]);
  });

  it('empty, whitespace only, over the prompt limit, control characters, a missing or extra field: 400 naming the problem', async () => {
    const session = await startSession(runner);
    const cases: [unknown, RegExp][] = [
      [{ text: '' }, /text.*must not be empty/],
      [{ text: ' \n\t ' }, /text.*must not be empty/],
      [{ text: 'x'.repeat(MESSAGE_MAX_BYTES + 1) }, /text.*at most 262144 bytes/],
      [{ text: 'bell \u0007' }, /text.*control characters other than newline and tab/],
      [{ text: 'escape \u001b[31m' }, /control characters/],
      [{}, /text/],
      [{ text: 'ok', role: 'system' }, /role|Unrecognized/i],
    ];
    for (const [body, why] of cases) {
      const answer = await send(session.sid, body);
      expect(answer.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(answer.body.error).toBe('invalid_payload');
      expect(String(answer.body.message)).toMatch(why);
    }
    expect((await list(session.sid)).messages).toEqual([]);
  });

  it('cancelling an unknown message, another tenant\'s, or with a dashboard token: 404 / 404 / 403, nothing changed', async () => {
    const session = await startSession(runner);
    const message = (await send(session.sid, { text: 'keep me' })).body.message as Message;
    expect(await cancel(session.sid, 'no-such-message')).toMatchObject({ status: 404, body: { error: 'message_not_found' } });
    expect((await cancel(session.sid, message.id, hub.tokens.otherOperator)).status).toBe(404);
    expect((await cancel(session.sid, message.id, hub.tokens.dashboard)).status).toBe(403);
    expect((await list(session.sid)).messages).toEqual([message]);
  });
});

describe('runners', () => {
  it('a runner joined to the session gets `message` with an ack; `{ ok: true }` marks it delivered via runner, broadcast', async () => {
    const session = await startSession(runner);
    const got: RunnerMessagePayload[] = [];
    runner.on('message', (payload, ack) => {
      got.push(payload);
      ack({ ok: true });
    });
    const message = (await send(session.sid, { text: 'run the tests again' })).body.message as Message;
    await waitFor(async () => (await list(session.sid)).messages[0]?.state === 'delivered', 5000, 'delivered');
    expect(got).toEqual([{ sid: session.sid, message }]);
    expect((await list(session.sid)).messages[0]).toEqual({ ...message, state: 'delivered', deliveredAt: expect.any(Number), via: 'runner', takenBy: 'test runner' });
    expect((await cancel(session.sid, message.id)).status).toBe(409);
  });

  it('a runner answering `{ ok: false }` leaves it queued; the session\'s runner joining again (its taker key) gets the queued ones, in order', async () => {
    const session = await startSession(runner);
    runner.on('message', (_payload, ack) => ack({ ok: false }));
    const first = (await send(session.sid, { text: 'one' })).body.message as Message;
    clock.advance(1);
    await send(session.sid, { text: 'two' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await list(session.sid)).messages.map((m) => m.state)).toEqual(['queued', 'queued']);

    const later = await connectRunner(hub.url, hub.tokens.runner);
    const texts: string[] = [];
    later.on('message', (payload, ack) => {
      texts.push(payload.message.text);
      ack({ ok: true });
    });
    const joined = await later.emitWithAck('session-join', { sid: session.sid, taker: testTaker('restarted runner') });
    expect(joined).toMatchObject({ ok: true });
    expect(joined).not.toHaveProperty('takerRefused');
    await waitFor(async () => (await list(session.sid)).messages.every((m) => m.state === 'delivered'), 5000, 'both delivered');
    expect(texts).toEqual(['one', 'two']);
    expect((await list(session.sid)).messages[0]).toMatchObject({ id: first.id, via: 'runner', takenBy: 'restarted runner' });
  });
});

describe('replay and expiry', () => {
  it('message events replay to a dashboard reconnecting with lastSeq', async () => {
    const session = await startSession(runner);
    const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
    const live = collectUpdates(dashboard);
    await dashboard.emitWithAck('subscribe', {});
    await send(session.sid, { text: 'before' });
    await waitFor(() => live.some((e) => e.body.t === 'message'), 3000, 'live message');
    const since = Math.max(...live.map((e) => e.seq)) - 1;
    const again = await connectDashboard(hub.url, hub.tokens.dashboard, { lastSeq: since });
    const replayed = collectUpdates(again);
    await again.emitWithAck('subscribe', {});
    await waitFor(() => replayed.some((e: UpdateEvent) => e.body.t === 'message'), 3000, 'replayed message');
  });

  it('the sweep expires a message queued longer than the TTL, visibly; a younger one stays queued', async () => {
    const session = await startSession(runner);
    const old = (await send(session.sid, { text: 'old' })).body.message as Message;
    clock.advance(50_000);
    const young = (await send(session.sid, { text: 'young' })).body.message as Message;
    clock.advance(10_001);
    const report = await hub.sweepNow();
    expect(report.messagesExpired).toBe(1);
    const messages = (await list(session.sid)).messages;
    expect(messages).toEqual([{ ...old, state: 'expired', endedAt: clock.now() }, young]);
  });
});
