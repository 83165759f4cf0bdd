/**
 * Web Push sending through the real hub (in this process) to a push service on loopback that
 * decrypts every push and checks its VAPID signature: one push per attention change with a title
 * and words a person reads, only to the session's namespace, nothing for other updates; a
 * subscription answered 404/410 is deleted; other failures are retried a bounded number of times
 * and hold up no other subscription; a revoked token's browsers get nothing.
 *
 * Subscriptions are made here with the service the HTTP route calls (subscribePush): the route
 * accepts https push endpoints only (http-api.test.ts), and this push service is plain HTTP on loopback.
 */
import { describe, expect, it } from 'vitest';
import type { UpdateBody } from '../../shared/protocol/broadcast.js';
import { PUSH_ATTEMPTS } from '../../hub/push/pusher.js';
import { hashToken, mintToken, revokeStoredToken, tokenIdOf } from '../../hub/services/tokens.js';
import { appendEvent } from '../../hub/store/events.js';
import { subscribePush } from '../../hub/services/push.js';
import { countSubscriptions } from '../../hub/store/push.js';
import { connectRunner, startSession, waitFor, type RunnerSocket } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { closePushServicesAfterEach, startPushService, type BrowserSubscription, type PushService } from './push-service.js';

let hub: TestHub;
let runner: RunnerSocket;
closePushServicesAfterEach();
useTestHub(async (started) => {
  hub = started;
  runner = await connectRunner(hub.url, hub.tokens.runner);
}, () => ({ config: { pushPollMs: 20, pushRetryMs: 50 } }));

async function subscribe(service: PushService, options: { namespace?: string; token?: string } = {}): Promise<BrowserSubscription> {
  const browser = service.subscribe();
  const tokenId = tokenIdOf(hashToken(options.token ?? hub.tokens.dashboard));
  await subscribePush(hub.deps.store, { endpoint: browser.endpoint, ...browser.keys, namespace: options.namespace ?? 'default', tokenId, now: Date.now() });
  return browser;
}

/**
 * Logs an attention change for a session, in the shape the attention state (issue 13, section 1)
 * gives update-session bodies: `attention: { value: { kind, since, message, tool } | null }`.
 */
async function setAttention(sid: string, value: { kind: string; message?: string | null; tool?: string | null } | null, namespace = 'default'): Promise<void> {
  const attention = value && { since: Date.now(), message: null, tool: null, ...value };
  const body = { t: 'update-session', sid, metadata: null, agentState: null, lifecycle: null, presence: null, attention: { value: attention } } as unknown as UpdateBody;
  await hub.deps.store.transaction((tx) => appendEvent(tx, { namespace, sid, body, now: Date.now() }));
}

async function publicKey(): Promise<string> {
  const response = await fetch(`${hub.url}/api/push/key`, { headers: { authorization: `Bearer ${hub.tokens.dashboard}` } });
  return ((await response.json()) as { publicKey: string }).publicKey;
}

describe('sending', () => {
  it('pushes one encrypted, VAPID-signed ping per attention change, saying who needs you and why', async () => {
    const service = await startPushService();
    const browser = await subscribe(service);
    const { sid } = await startSession(runner, { metadata: { path: '/work/alpha', title: 'Fix the login' } });
    await setAttention(sid, { kind: 'permission', tool: 'Bash', message: 'Claude needs your permission to use Bash' });
    await waitFor(() => service.pushes.length === 1, 5000, 'the permission push');
    const [push] = service.pushes;
    expect(service.refused).toEqual([]);
    expect(push!.endpoint).toBe(browser.endpoint);
    expect(push!.payload).toMatchObject({ title: expect.stringContaining('Fix the login'), sid, kind: 'permission', url: `/#/s/${encodeURIComponent(sid)}` });
    expect(push!.payload.body).toContain('waits for your approval to run Bash');
    // the agent's display name from shared/flavors.ts, not its id
    expect(push!.payload.title).toMatch(/Fix the login · \S/);
    // VAPID: signed by the key GET /api/push/key gives browsers, for this push service's origin, not expired
    expect(push!.vapid.publicKey).toBe(await publicKey());
    expect(push!.vapid.claims.aud).toBe(service.origin);
    expect(push!.vapid.claims.exp * 1000).toBeGreaterThan(Date.now());
    expect(push!.vapid.claims.sub).toMatch(/^mailto:|^https:/);
    expect(Number(push!.headers.ttl)).toBeGreaterThan(0);

    // cleared, then other updates: nothing; set again (done): one more push
    await setAttention(sid, null);
    await runner.emitWithAck('prompt-submit', { sid, prompt: 'go on' });
    await setAttention(sid, { kind: 'done' });
    await waitFor(() => service.pushes.length === 2, 5000, 'the done push');
    expect(service.pushes[1]!.payload.body).toContain('has finished');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(service.pushes).toHaveLength(2);
  });

  it('pushes only to subscriptions of the session namespace, and names a session by its tag when it has no title', async () => {
    const service = await startPushService();
    const mine = await subscribe(service);
    await subscribe(service, { namespace: 'other', token: hub.tokens.otherDashboard });
    const { sid } = await startSession(runner, { tag: 'billing', metadata: { path: '/home/me/projects/billing-api/' } });
    await setAttention(sid, { kind: 'failed', message: 'rate limit reached' });
    await waitFor(() => service.pushes.length >= 1, 5000, 'the push');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(service.pushes.map((p) => p.endpoint)).toEqual([mine.endpoint]);
    expect(service.pushes[0]!.payload.title).toMatch(/^billing · /);
    expect(service.pushes[0]!.payload.body).toContain('stopped on an error: rate limit reached');
  });

  it('deletes a subscription the push service answers 404 or 410, and keeps the others', async () => {
    const service = await startPushService();
    const gone404 = await subscribe(service);
    const gone410 = await subscribe(service);
    const kept = await subscribe(service);
    service.answer = (_index, push) => (push.endpoint === gone404.endpoint ? 404 : push.endpoint === gone410.endpoint ? 410 : 201);
    const { sid } = await startSession(runner);
    await setAttention(sid, { kind: 'question', message: 'Which database?' });
    await waitFor(async () => (await countSubscriptions(hub.deps.store, 'default')) === 1, 5000, 'the gone subscriptions deleted');
    await setAttention(sid, { kind: 'done' });
    await waitFor(() => service.pushes.filter((p) => p.endpoint === kept.endpoint).length === 2, 5000, 'the kept subscription pushed twice');
    expect(service.pushes.filter((p) => p.endpoint !== kept.endpoint)).toHaveLength(2);
  });

  it('retries a failing push service a bounded number of times without holding up another subscription', async () => {
    const service = await startPushService();
    const failing = await subscribe(service);
    const healthy = await subscribe(service);
    service.answer = (_index, push) => (push.endpoint === failing.endpoint ? 500 : 201);
    const { sid } = await startSession(runner);
    await setAttention(sid, { kind: 'permission', tool: 'Edit' });
    await waitFor(() => service.pushes.some((p) => p.endpoint === healthy.endpoint), 5000, 'the healthy push');
    // retries wait 50 ms, then 100 ms: all attempts are in well within a second
    await waitFor(() => service.pushes.filter((p) => p.endpoint === failing.endpoint).length === PUSH_ATTEMPTS, 5000, 'every attempt');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(service.pushes.filter((p) => p.endpoint === failing.endpoint)).toHaveLength(PUSH_ATTEMPTS);
    // a 500 is not "gone": the subscription stays
    expect(await countSubscriptions(hub.deps.store, 'default')).toBe(2);
    const metrics = await (await fetch(`${hub.url}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`session_hub_push_attempts_total\\{result="failed"\\} ${PUSH_ATTEMPTS}\\b`));
    expect(metrics).toMatch(/session_hub_push_attempts_total\{result="sent"\} 1\b/);
  });

  it('sends nothing to browsers subscribed with a token revoked since', async () => {
    const service = await startPushService();
    const minted = await mintToken(hub.deps.store, { role: 'dashboard', namespace: 'default', source: 'cli', now: Date.now() });
    await subscribe(service, { token: minted.token });
    const kept = await subscribe(service);
    await revokeStoredToken(hub.deps.store, { id: minted.stored.id, now: Date.now() });
    const { sid } = await startSession(runner);
    await setAttention(sid, { kind: 'done' });
    await waitFor(() => service.pushes.length >= 1, 5000, 'the push');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(service.pushes.map((p) => p.endpoint)).toEqual([kept.endpoint]);
  });
});
