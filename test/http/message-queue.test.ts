/**
 * A session's message queue has limits, and its list is paged (issue 33, point 4), on a real hub over
 * real HTTP: past the queue's count or bytes a message is refused `429 queue_full` naming the limit,
 * nothing queued; `GET …/messages` answers the latest page first (oldest first within it) with a
 * cursor to the page before, and the pages join to the whole list.
 */
import { describe, expect, it } from 'vitest';
import type { Message, MessagesResponse } from '../../shared/protocol/messages.js';
import { connectRunner, startSession } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';

let hub: TestHub;
useTestHub((started) => (hub = started), () => ({ config: { messageQueueMax: 5, messageQueueMaxBytes: 10_000 } }));

async function http(method: 'GET' | 'POST', path: string, token: string, body?: unknown) {
  const response = await fetch(`${hub.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
const send = (sid: string, text: string) => http('POST', `/api/sessions/${sid}/messages`, hub.tokens.operator, { text });
const page = async (sid: string, query = '') => {
  const answer = await http('GET', `/api/sessions/${sid}/messages${query}`, hub.tokens.dashboard);
  expect(answer.status).toBe(200);
  return answer.body as unknown as MessagesResponse;
};

/** A session no runner holds (its messages stay queued). */
async function idleSession() {
  const runner = await connectRunner(hub.url, hub.tokens.runner);
  const session = await startSession(runner);
  runner.disconnect();
  return session;
}

describe('queue limits', () => {
  it('the count: the 6th queued message of a session is 429 queue_full naming SESSION_HUB_MESSAGE_QUEUE_MAX, nothing queued', async () => {
    const session = await idleSession();
    for (let i = 0; i < 5; i++) expect((await send(session.sid, `m${i}`)).status).toBe(201);
    const refused = await send(session.sid, 'one too many');
    expect(refused).toEqual({ status: 429, body: { error: 'queue_full', message: expect.stringMatching(/5 queued messages.*SESSION_HUB_MESSAGE_QUEUE_MAX/) } });
    expect((await page(session.sid)).messages.map((m) => m.text)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
    // another session's queue is its own
    const other = await idleSession();
    expect((await send(other.sid, 'fine')).status).toBe(201);
  });

  it('the bytes: a message that would take the queue past SESSION_HUB_MESSAGE_QUEUE_MAX_BYTES is refused, a smaller one still fits', async () => {
    const session = await idleSession();
    expect((await send(session.sid, 'a'.repeat(6000))).status).toBe(201);
    const refused = await send(session.sid, 'é'.repeat(2500)); // 5000 bytes of UTF-8: 11,000 in all
    expect(refused).toEqual({ status: 429, body: { error: 'queue_full', message: expect.stringMatching(/10000 bytes.*SESSION_HUB_MESSAGE_QUEUE_MAX_BYTES/) } });
    expect((await send(session.sid, 'b'.repeat(4000))).status).toBe(201);
    expect((await page(session.sid)).messages.map((m) => m.text.length)).toEqual([6000, 4000]);
  });

  it('only queued messages count: once cancelled, there is room again', async () => {
    const session = await idleSession();
    const sent: Message[] = [];
    for (let i = 0; i < 5; i++) sent.push(((await send(session.sid, `m${i}`)).body as { message: Message }).message);
    expect((await send(session.sid, 'no room')).status).toBe(429);
    const cancelled = await fetch(`${hub.url}/api/sessions/${session.sid}/messages/${sent[0]!.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${hub.tokens.operator}` } });
    expect(cancelled.status).toBe(200);
    expect((await send(session.sid, 'room now')).status).toBe(201);
  });
});

describe('paging GET …/messages', () => {
  it('latest page first, oldest first within it, nextCursor to the page before; the pages join to the whole list', async () => {
    const session = await idleSession();
    const all: string[] = [];
    // cancelled as they go, so the queue limit (5) does not stop the list growing
    for (let i = 0; i < 12; i++) {
      const message = ((await send(session.sid, `m${String(i).padStart(2, '0')}`)).body as { message: Message }).message;
      all.push(message.id);
      await fetch(`${hub.url}/api/sessions/${session.sid}/messages/${message.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${hub.tokens.operator}` } });
    }
    const first = await page(session.sid, '?limit=5');
    expect(first.messages.map((m) => m.text)).toEqual(['m07', 'm08', 'm09', 'm10', 'm11']);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await page(session.sid, `?limit=5&cursor=${first.nextCursor}`);
    expect(second.messages.map((m) => m.text)).toEqual(['m02', 'm03', 'm04', 'm05', 'm06']);
    const third = await page(session.sid, `?limit=5&cursor=${second.nextCursor}`);
    expect(third.messages.map((m) => m.text)).toEqual(['m00', 'm01']);
    expect(third.nextCursor).toBeUndefined();
    expect([...third.messages, ...second.messages, ...first.messages].map((m) => m.id)).toEqual(all);
    // the page's own call (no query): the latest messages, all of them here (default page 100)
    expect((await page(session.sid)).messages.map((m) => m.id)).toEqual(all);
  });

  it('the default page is 100 messages, the latest', async () => {
    const session = await idleSession();
    for (let i = 0; i < 103; i++) {
      const message = ((await send(session.sid, `n${i}`)).body as { message: Message }).message;
      await fetch(`${hub.url}/api/sessions/${session.sid}/messages/${message.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${hub.tokens.operator}` } });
    }
    const latest = await page(session.sid);
    expect(latest.messages).toHaveLength(100);
    expect(latest.messages[0]!.text).toBe('n3');
    expect(latest.messages[99]!.text).toBe('n102');
    expect((await page(session.sid, `?cursor=${latest.nextCursor}`)).messages.map((m) => m.text)).toEqual(['n0', 'n1', 'n2']);
  });

  it('a bad limit or cursor is 400 invalid_payload naming it', async () => {
    const session = await idleSession();
    for (const [query, field] of [['?limit=0', 'limit'], ['?limit=501', 'limit'], ['?limit=x', 'limit'], ['?cursor=nope', 'cursor']] as const) {
      const answer = await http('GET', `/api/sessions/${session.sid}/messages${query}`, hub.tokens.dashboard);
      expect(answer).toEqual({ status: 400, body: { error: 'invalid_payload', message: expect.stringContaining(field) } });
    }
  });
});
