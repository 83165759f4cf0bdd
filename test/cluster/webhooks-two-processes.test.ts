/**
 * Webhooks with two hub processes on one PostgreSQL database: one process delivers (the holder of
 * the `webhook-delivery` lock), so events made on either go out once each, in seq order; when that
 * process is killed (-9), the other takes over from the stored cursor and nothing is lost.
 */
import { describe, expect, it } from 'vitest';
import type { CreateWebhookResponse } from '../../shared/protocol/webhooks.js';
import { waitFor } from '../helpers/clients.js';
import type { HubProcess } from '../helpers/hub-process.js';
import { closeReceiversAfterEach, startReceiver } from '../webhooks/receiver.js';
import { metric, runnerOn, startTwoHubs, twoHubsAfterEach } from './two-hubs.js';

twoHubsAfterEach();
closeReceiversAfterEach();

const ENV = { SESSION_HUB_WEBHOOK_POLL_MS: '50', SESSION_HUB_WEBHOOK_RETRY_MS: '100', SESSION_HUB_WEBHOOK_RETRY_MAX_MS: '200' };
const delivered = (hub: HubProcess) => metric(hub, 'session_hub_webhook_deliveries_total{result="ok"}');

describe('webhooks on two hub processes', () => {
  it('one process delivers each event once, in order; after it is killed the other delivers the rest', { timeout: 60_000 }, async () => {
    const { a, b, tokens } = await startTwoHubs(ENV);
    const receiver = await startReceiver();
    const response = await fetch(`${b.url}/api/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, events: ['session-created'] }),
    });
    expect(response.status).toBe(201);
    receiver.secret = ((await response.json()) as CreateWebhookResponse).secret;

    const runners = { a: await runnerOn(a, tokens.runner), b: await runnerOn(b, tokens.runner) };
    const sids: string[] = [];
    const start = async (runner: (typeof runners)['a'], tag: string) => {
      const { session } = await runner.startSession({ tag, flavor: 'claude', source: 'startup', metadata: { path: '/work/p' } });
      sids.push(session.sid);
    };
    for (let i = 0; i < 6; i++) await start(i % 2 === 0 ? runners.a : runners.b, `s${i}`);
    await waitFor(() => receiver.posts.length === 6, 10_000, 'six deliveries');
    // each exactly once (no second deliverer), in the order they were made, all signed
    expect(receiver.posts.map((post) => post.body.sid)).toEqual(sids);
    expect(receiver.posts.every((post) => post.signed)).toBe(true);
    const counts = [await delivered(a), await delivered(b)];
    expect(counts.sort()).toEqual([0, 6]);

    const leader = (await delivered(a)) === 6 ? a : b;
    const survivor = leader === a ? b : a;
    await leader.kill9();
    const runner = leader === a ? runners.b : runners.a;
    for (let i = 6; i < 9; i++) await start(runner, `s${i}`);
    await waitFor(() => receiver.accepted().length === 9, 20_000, 'the survivor delivering');
    expect(receiver.accepted().map((post) => post.body.sid)).toEqual(sids);
    expect(await delivered(survivor)).toBe(3);
  });
});
