/**
 * Only a session's own runner takes its messages (issue 33, point 3), with real Socket.IO clients on
 * one runner token: the runner that started the session registered its taker key; another runner of
 * the same token joining the session without that key is told why (`takerRefused`), is never offered
 * a message, and the message stays queued for the session's own runner; the page shows the taker.
 */
import { describe, expect, it } from 'vitest';
import type { Message, MessagesResponse } from '../../shared/protocol/messages.js';
import { connectRunner, startSession, testTaker, waitFor, type RunnerSocket } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { postMessage } from '../helpers/messages.js';

let hub: TestHub;
useTestHub((started) => (hub = started));

async function messagesOf(sid: string): Promise<Message[]> {
  const response = await fetch(`${hub.url}/api/sessions/${sid}/messages`, { headers: { authorization: `Bearer ${hub.tokens.runner}` } });
  return ((await response.json()) as MessagesResponse).messages;
}
/** Every `message` a socket is offered; it acks each one taken. */
function collect(runner: RunnerSocket): string[] {
  const got: string[] = [];
  runner.on('message', (payload, ack) => {
    got.push(payload.message.text);
    ack({ ok: true });
  });
  return got;
}

const otherKey = 'another-sessions-key-'.padEnd(40, 'x');

describe('another runner on the same token', () => {
  it('joining without the key or with another: takerRefused says why, it is offered nothing; the message stays queued, then goes to the session\'s own runner', async () => {
    const own = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(own);
    own.disconnect();

    const intruder = await connectRunner(hub.url, hub.tokens.runner);
    const stolen = collect(intruder);
    const bare = await intruder.emitWithAck('session-join', { sid: session.sid });
    expect(bare).toMatchObject({ ok: true, takerRefused: expect.stringContaining('no taker key') });
    const wrong = await intruder.emitWithAck('session-join', { sid: session.sid, taker: { key: otherKey, process: 'intruder' } });
    expect(wrong).toMatchObject({ ok: true, takerRefused: expect.stringContaining("not this session's taker") });
    // a session-start on its tag is no way in either
    const restart = await intruder.emitWithAck('session-start', { tag: session.tag, flavor: 'claude', source: 'resume', taker: { key: otherKey, process: 'intruder' } });
    expect(restart).toMatchObject({ ok: true, created: false, takerRefused: expect.stringContaining("not this session's taker") });

    const message = await postMessage(hub, session.sid, 'for the session\'s own agent');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(stolen).toEqual([]);
    expect((await messagesOf(session.sid))[0]).toMatchObject({ id: message.id, state: 'queued', takenBy: null });

    const back = await connectRunner(hub.url, hub.tokens.runner);
    const got = collect(back);
    const rejoined = await back.emitWithAck('session-join', { sid: session.sid, taker: testTaker('own runner, back') });
    expect(rejoined).not.toHaveProperty('takerRefused');
    await waitFor(() => got.length === 1, 5000, 'the own runner got it');
    expect(got).toEqual(["for the session's own agent"]);
    await waitFor(async () => (await messagesOf(session.sid))[0]?.state === 'delivered', 5000, 'delivered');
    expect((await messagesOf(session.sid))[0]).toMatchObject({ state: 'delivered', via: 'runner', takenBy: 'own runner, back' });
    expect(stolen).toEqual([]);
  });

  it('a message sent while both are joined goes to the session\'s own runner only', async () => {
    const own = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(own);
    const got = collect(own);
    const intruder = await connectRunner(hub.url, hub.tokens.runner);
    const stolen = collect(intruder);
    await intruder.emitWithAck('session-join', { sid: session.sid, taker: { key: otherKey, process: 'intruder' } });
    await postMessage(hub, session.sid, 'live one');
    await waitFor(() => got.length === 1, 5000, 'the own runner got it');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stolen).toEqual([]);
    expect((await messagesOf(session.sid))[0]).toMatchObject({ state: 'delivered', takenBy: 'test runner' });
  });
});
