/**
 * RunnerClient.onMessage (docs/sdk.md) against a real hub: a person's message posted over HTTP
 * reaches the handler; the hub marks it delivered only once the handler resolves; a handler that
 * throws, or none at all, leaves it queued for the next taker; queued messages reach the session's
 * runner joining again with its taker key, never another client on the same token.
 */
import { describe, expect, it } from 'vitest';
import type { Message, MessagesResponse } from '../../shared/protocol/messages.js';
import { waitFor } from '../helpers/clients.js';
import type { TestHub } from '../helpers/hub.js';
import { getJson, runnerClient, useSdkTestHub } from './sdk-helpers.js';
import { postMessage } from '../helpers/messages.js';

let hub: TestHub;
useSdkTestHub((started) => (hub = started));

const start = (tag: string) => ({ tag, flavor: 'claude', source: 'startup' as const });

const post = (sid: string, text: string): Promise<Message> => postMessage(hub, sid, text);

const states = async (sid: string) => (await getJson<MessagesResponse>(`${hub.url}/api/sessions/${sid}/messages`, hub.tokens.dashboard)).messages.map((m) => m.state);

describe('RunnerClient.onMessage', () => {
  it('the handler gets the message; it is delivered only after the handler resolves', async () => {
    const runner = await runnerClient(hub.url, hub.tokens.runner);
    let release!: () => void;
    const seen: Message[] = [];
    runner.onMessage(async (message) => {
      seen.push(message);
      await new Promise<void>((resolve) => (release = resolve));
    });
    const { session } = await runner.startSession(start('sdk-msg'));
    const message = await post(session.sid, 'also update the snapshots');
    await waitFor(() => seen.length === 1, 5000, 'handler called');
    expect(seen[0]).toEqual(message);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await states(session.sid)).toEqual(['queued']);
    release();
    await waitFor(async () => (await states(session.sid))[0] === 'delivered', 5000, 'delivered');
  });

  it('a throwing handler leaves the message queued; the runner restarted with its takerKey joins and takes it; another client never does', async () => {
    const takerKey = 'kept-by-the-runner-'.padEnd(40, 'k');
    const failing = await runnerClient(hub.url, hub.tokens.runner, { takerKey });
    failing.onMessage(() => {
      throw new Error('agent busy');
    });
    const { session } = await failing.startSession(start('sdk-msg-2'));
    await post(session.sid, 'first');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await states(session.sid)).toEqual(['queued']);
    await failing.close();

    // another runner process on the same token (its own random key): not this session's taker
    const other = await runnerClient(hub.url, hub.tokens.runner);
    const stolen: string[] = [];
    other.onMessage((message) => void stolen.push(message.text));
    expect(await other.startSession(start('sdk-msg-2'))).toMatchObject({ created: false, takerRefused: expect.stringContaining("not this session's taker") });
    await other.joinSession(session.sid);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stolen).toEqual([]);
    expect(await states(session.sid)).toEqual(['queued']);

    const later = await runnerClient(hub.url, hub.tokens.runner, { takerKey });
    const texts: string[] = [];
    later.onMessage((message) => void texts.push(message.text));
    await later.joinSession(session.sid);
    await waitFor(async () => (await states(session.sid))[0] === 'delivered', 5000, 'delivered to the restarted runner');
    expect(texts).toEqual(['first']);
    expect(stolen).toEqual([]);
  });

  it('with no handler the message stays queued; removing the handler stops delivery', async () => {
    const runner = await runnerClient(hub.url, hub.tokens.runner);
    const off = runner.onMessage(() => undefined);
    off();
    const { session } = await runner.startSession(start('sdk-msg-3'));
    await post(session.sid, 'anyone?');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await states(session.sid)).toEqual(['queued']);
  });
});
