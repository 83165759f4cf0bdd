/**
 * The push HTTP API through the real hub: the public VAPID key, subscribing and unsubscribing a
 * browser's PushSubscription under a token, the roles allowed, bad bodies refused with the field
 * named, and the key pair kept across a restart or given by environment.
 */
import { createECDH, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import webpush from 'web-push';
import { describe, expect, it } from 'vitest';
import { hashToken, tokenIdOf } from '../../hub/services/tokens.js';
import { countSubscriptions, listLiveSubscriptions } from '../../hub/store/push.js';
import { closeTestHubsAfterEach, startTestHub, type TestHub } from '../helpers/hub.js';
import { releaseDatabaseOf } from '../helpers/test-store.js';
import { TEST_TOKENS } from '../helpers/tokens.js';

closeTestHubsAfterEach();

/** What a browser's `subscription.toJSON()` looks like. */
function browserSubscription(endpoint = `https://push.example.test/send/${randomBytes(8).toString('hex')}`) {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { endpoint, expirationTime: null, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') } };
}

async function call(hub: TestHub, method: string, path: string, token: string | undefined, body?: unknown) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${hub.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('push API', () => {
  it('gives the public key and stores a subscription per token and namespace; unsubscribing removes it', async () => {
    const hub = await startTestHub();
    const key = await call(hub, 'GET', '/api/push/key', TEST_TOKENS.dashboard);
    expect(key.status).toBe(200);
    expect(Buffer.from(String(key.body.publicKey), 'base64url')).toHaveLength(65);

    const subscription = browserSubscription();
    const created = await call(hub, 'POST', '/api/push/subscriptions', TEST_TOKENS.dashboard, subscription);
    expect(created).toEqual({ status: 201, body: { subscribed: subscription.endpoint } });
    const stored = await listLiveSubscriptions(hub.deps.store, { namespace: 'default', now: Date.now() });
    expect(stored).toEqual([{ endpoint: subscription.endpoint, tokenId: tokenIdOf(hashToken(TEST_TOKENS.dashboard)), ...subscription.keys }]);
    // the same browser subscribing again (here under the admin token) replaces its row
    expect((await call(hub, 'POST', '/api/push/subscriptions', TEST_TOKENS.admin, subscription)).status).toBe(201);
    expect(await countSubscriptions(hub.deps.store, 'default')).toBe(1);

    // another tenant cannot remove it
    expect((await call(hub, 'DELETE', '/api/push/subscriptions', TEST_TOKENS.otherDashboard, { endpoint: subscription.endpoint })).status).toBe(404);
    expect(await call(hub, 'DELETE', '/api/push/subscriptions', TEST_TOKENS.dashboard, { endpoint: subscription.endpoint })).toEqual({ status: 200, body: { removed: subscription.endpoint } });
    expect(await countSubscriptions(hub.deps.store, 'default')).toBe(0);
    const again = await call(hub, 'DELETE', '/api/push/subscriptions', TEST_TOKENS.dashboard, { endpoint: subscription.endpoint });
    expect(again.status).toBe(404);
    expect(again.body.error).toBe('not_found');
  });

  it('refuses runner tokens (403) and requests without a token (401)', async () => {
    const hub = await startTestHub();
    for (const [method, path, body] of [['GET', '/api/push/key', undefined], ['POST', '/api/push/subscriptions', browserSubscription()], ['DELETE', '/api/push/subscriptions', { endpoint: 'https://push.example.test/x' }]] as const) {
      const runner = await call(hub, method, path, TEST_TOKENS.runner, body);
      expect(runner.status, `${method} ${path}`).toBe(403);
      expect(runner.body.error).toBe('forbidden');
      expect((await call(hub, method, path, undefined, body)).status, `${method} ${path}`).toBe(401);
    }
  });

  it('refuses a body that is not a browser push subscription, naming the field', async () => {
    const hub = await startTestHub();
    const good = browserSubscription();
    const cases: [unknown, RegExp][] = [
      [{ ...good, endpoint: 'http://push.example.test/x' }, /endpoint.*https/],
      [{ ...good, endpoint: 'not a url' }, /endpoint.*https/],
      [{ ...good, endpoint: undefined }, /endpoint/],
      [{ ...good, keys: undefined }, /keys/],
      [{ ...good, keys: { ...good.keys, p256dh: 'abc' } }, /keys\.p256dh.*65 bytes/],
      [{ ...good, keys: { ...good.keys, p256dh: 'not base64url!' } }, /keys\.p256dh.*base64url/],
      [{ ...good, keys: { ...good.keys, auth: undefined } }, /keys\.auth/],
      [{ ...good, keys: { ...good.keys, auth: randomBytes(8).toString('base64url') } }, /keys\.auth.*16 bytes/],
      [{ ...good, endpoint: `https://push.example.test/${'x'.repeat(2100)}` }, /endpoint.*2048/],
    ];
    for (const [body, message] of cases) {
      const answer = await call(hub, 'POST', '/api/push/subscriptions', TEST_TOKENS.dashboard, body);
      expect(answer.status, JSON.stringify(body).slice(0, 120)).toBe(400);
      expect(answer.body.error).toBe('invalid_payload');
      expect(String(answer.body.message)).toMatch(message);
    }
    const removal = await call(hub, 'DELETE', '/api/push/subscriptions', TEST_TOKENS.dashboard, {});
    expect(removal.status).toBe(400);
    expect(String(removal.body.message)).toMatch(/endpoint/);
    expect(await countSubscriptions(hub.deps.store, 'default')).toBe(0);
  });

  it('keeps the key pair it made across a restart, and uses a pair given by environment', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'session-hub-push-'));
    try {
      const first = await startTestHub({ dataDir });
      const made = (await call(first, 'GET', '/api/push/key', TEST_TOKENS.dashboard)).body.publicKey;
      await first.close();
      const restarted = await startTestHub({ dataDir });
      expect((await call(restarted, 'GET', '/api/push/key', TEST_TOKENS.dashboard)).body.publicKey).toBe(made);
      await restarted.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      await releaseDatabaseOf(dataDir);
    }

    const given = webpush.generateVAPIDKeys();
    const configured = await startTestHub({ config: { vapidPublicKey: given.publicKey, vapidPrivateKey: given.privateKey } });
    expect((await call(configured, 'GET', '/api/push/key', TEST_TOKENS.dashboard)).body.publicKey).toBe(given.publicKey);
  });

  it('refuses to start with half a key pair or a key of the wrong size, naming the variable', async () => {
    const given = webpush.generateVAPIDKeys();
    await expect(startTestHub({ config: { vapidPublicKey: given.publicKey } })).rejects.toThrow(/SESSION_HUB_VAPID_PUBLIC_KEY and SESSION_HUB_VAPID_PRIVATE_KEY go together/);
    await expect(startTestHub({ config: { vapidPublicKey: given.publicKey, vapidPrivateKey: given.publicKey } })).rejects.toThrow(/SESSION_HUB_VAPID_PRIVATE_KEY decodes to 65 bytes, not 32/);
    await expect(startTestHub({ config: { vapidSubject: 'me@example.com' } })).rejects.toThrow(/SESSION_HUB_VAPID_SUBJECT: must be a mailto: address or an https:\/\/ URL/);
  });
});
