/**
 * Nothing lost across a restart of the real hub process: events made while the receiver failed, or
 * with a POST in flight, are delivered by the next process on the same database, after a graceful
 * stop and after kill -9. At least once: a receiver that drops duplicates by event id sees each
 * event exactly once, in seq order.
 */
import { describe, expect, it } from 'vitest';
import type { CreateWebhookResponse } from '../../shared/protocol/webhooks.js';
import { connectRunner, startSession, waitFor } from '../helpers/clients.js';
import { spawnHub, stopHubsAfterEach, type HubProcess } from '../helpers/hub-process.js';
import { closeReceiversAfterEach, startReceiver, type Receiver } from './receiver.js';

stopHubsAfterEach();
closeReceiversAfterEach();

const ENV = {
  SESSION_HUB_WEBHOOK_POLL_MS: '50',
  SESSION_HUB_WEBHOOK_RETRY_MS: '100',
  SESSION_HUB_WEBHOOK_RETRY_MAX_MS: '200',
  SESSION_HUB_WEBHOOK_PAUSE_AFTER: '1000',
};

async function addWebhook(hub: HubProcess, receiver: Receiver): Promise<void> {
  const response = await fetch(`${hub.url}/api/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${hub.tokens.admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, events: ['session-created'] }),
  });
  expect(response.status).toBe(201);
  receiver.secret = ((await response.json()) as CreateWebhookResponse).secret;
}

async function startSessions(hub: HubProcess, count: number): Promise<string[]> {
  const runner = await connectRunner(hub.url, hub.tokens.runner);
  const sids: string[] = [];
  for (let i = 0; i < count; i++) sids.push((await startSession(runner)).sid);
  runner.disconnect();
  return sids;
}

describe('restart', () => {
  it.each([
    ['a graceful stop', (hub: HubProcess) => hub.stop()],
    ['kill -9', (hub: HubProcess) => hub.kill9()],
  ])('delivers, after %s, every event the receiver had refused', async (_how, halt) => {
    const receiver = await startReceiver();
    receiver.answer = () => 500;
    const first = await spawnHub({ env: ENV });
    await addWebhook(first, receiver);
    const sids = await startSessions(first, 5);
    await waitFor(() => receiver.posts.length >= 2, 10_000, 'failed attempts');
    await halt(first);
    const refused = receiver.posts.length;
    expect(receiver.accepted()).toEqual([]);

    receiver.answer = () => 200;
    await spawnHub({ dataDir: first.dataDir, env: ENV });
    await waitFor(() => receiver.accepted().length === sids.length, 15_000, 'every event delivered after the restart');
    expect(receiver.accepted().map((post) => post.body.sid)).toEqual(sids);
    expect(receiver.posts.slice(refused).every((post) => post.signed)).toBe(true);
  });

  it('delivers again, after kill -9, the event whose POST was in flight, and everything after it', async () => {
    const receiver = await startReceiver();
    // the third event's first POST never gets an answer: the hub is killed while it waits
    receiver.answer = (index) => (index === 2 ? 'hang' : 200);
    const first = await spawnHub({ env: ENV });
    await addWebhook(first, receiver);
    const sids = await startSessions(first, 6);
    await waitFor(() => receiver.posts.length === 3, 10_000, 'the hanging POST');
    await first.kill9();
    expect(receiver.accepted().map((post) => post.body.sid)).toEqual(sids.slice(0, 2));

    await spawnHub({ dataDir: first.dataDir, env: ENV });
    await waitFor(() => receiver.accepted().length === sids.length, 15_000, 'every event delivered after the restart');
    expect(receiver.accepted().map((post) => post.body.sid)).toEqual(sids);
    // the one in flight came twice with the same id; a receiver dropping duplicates kept it once
    const third = receiver.posts.filter((post) => post.body.sid === sids[2]);
    expect(third.length).toBeGreaterThanOrEqual(2);
    expect(new Set(third.map((post) => post.eventId)).size).toBe(1);
  });
});
