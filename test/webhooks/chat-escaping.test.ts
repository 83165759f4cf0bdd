/**
 * Issue 26, point 13: session text (a title, a prompt, an agent's answer) reaches a team's chat
 * through `slack`-format webhooks (Slack, Mattermost, Discord's /slack endpoint). Slack reads `<…>`
 * as a mention or a link and `&` as an entity; Discord and Mattermost ping on `@everyone`, `@here`,
 * `@channel`, `@all`. Posted to a real receiver on loopback: session data must arrive as plain text.
 */
import { describe, expect, it } from 'vitest';
import type { CreateWebhookResponse } from '../../shared/protocol/webhooks.js';
import { connectRunner, startSession, waitFor, type RunnerSocket } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { closeReceiversAfterEach, startReceiver, type Receiver } from './receiver.js';

const TITLE = '<!channel> deploy <https://evil.example/login|the usual dashboard> & notify @everyone';
const PROMPT = 'ask <@U024BE7LH> and @here about <#C123>';
const ANSWER = 'done: 1 < 2 && 3 > 2, cc @channel @all';

let hub: TestHub;
let runner: RunnerSocket;
closeReceiversAfterEach();
useTestHub(async (started) => {
  hub = started;
  runner = await connectRunner(hub.url, hub.tokens.runner);
}, () => ({ config: { webhookPollMs: 20, webhookRetryMs: 50, webhookRetryMaxMs: 200, webhookTimeoutMs: 1000 } }));

async function addWebhook(receiver: Receiver, format: 'slack' | 'json'): Promise<void> {
  const response = await fetch(`${hub.url}/api/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${hub.tokens.admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, format, events: ['session-created', 'turn'] }),
  });
  expect(response.status).toBe(201);
  receiver.secret = ((await response.json()) as CreateWebhookResponse).secret;
}

async function hostileSession(): Promise<void> {
  const session = await startSession(runner, { metadata: { path: '/work/app', title: TITLE } });
  await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: PROMPT });
  await runner.emitWithAck('turn-stop', { sid: session.sid, response: ANSWER, status: 'completed' });
}

/** What a chat service would read as markup or a mention in a line. */
function expectPlainChatText(text: string): void {
  expect(text).not.toMatch(/[<>]/);
  // every & starts one of the three entities
  expect(text.replace(/&(amp|lt|gt);/g, '')).not.toContain('&');
  expect(text).not.toMatch(/@(everyone|here|channel|all)\b/);
}

describe('session text in chat-format webhooks', () => {
  it('slack format: <, >, & are escaped, @-mentions are broken, Discord is told to parse no mention', async () => {
    const receiver = await startReceiver();
    await addWebhook(receiver, 'slack');
    await hostileSession();
    await waitFor(() => receiver.posts.length === 3, 5000, 'three deliveries');
    const texts = receiver.posts.map((post) => post.body.text as string);
    for (const text of texts) expectPlainChatText(text);
    // the words are all still there, as text
    expect(texts[0]).toBe(`Claude Code session "&lt;!channel&gt; deploy &lt;https://evil.example/login|the usual dashboard&gt; &amp; notify @\u200beveryone" started`);
    expect(texts[1]).toContain('"ask &lt;@\u200bU024BE7LH&gt; and @\u200bhere about &lt;#C123&gt;"');
    expect(texts[2]).toContain('"done: 1 &lt; 2 &amp;&amp; 3 &gt; 2, cc @\u200bchannel @\u200ball"');
    for (const post of receiver.posts) {
      expect(post.body.allowed_mentions).toEqual({ parse: [] });
      expect(post.signed).toBe(true);
    }
  });

  it('json format: the readable line is escaped the same way; the body keeps the values as stored', async () => {
    const receiver = await startReceiver();
    await addWebhook(receiver, 'json');
    await hostileSession();
    await waitFor(() => receiver.posts.length === 3, 5000, 'three deliveries');
    for (const post of receiver.posts) expectPlainChatText(post.body.text as string);
    const created = receiver.posts[0]!.body.body as { session: { metadata: { value: { title: string } } } };
    expect(created.session.metadata.value.title).toBe(TITLE);
  });
});
