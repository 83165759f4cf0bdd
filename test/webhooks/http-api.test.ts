/**
 * The admin API of webhooks: create (the secret shown once), list (never a secret), remove, resume;
 * admin tokens only, each scoped to its namespace; malformed URLs and unknown names refused with a
 * message naming the field, changing nothing.
 */
import { describe, expect, it } from 'vitest';
import type { CreateWebhookResponse, Webhook } from '../../shared/protocol/webhooks.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';

let hub: TestHub;
useTestHub((started) => {
  hub = started;
});

function call(method: string, path: string, token: string | undefined, body?: unknown) {
  return fetch(`${hub.url}${path}`, {
    method,
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function list(token: string = hub.tokens.admin): Promise<Webhook[]> {
  const response = await call('GET', '/api/webhooks', token);
  expect(response.status).toBe(200);
  return ((await response.json()) as { webhooks: Webhook[] }).webhooks;
}

describe('admin API', () => {
  it('creates a webhook, shows its secret once, lists it without the secret, and removes it', async () => {
    const response = await call('POST', '/api/webhooks', hub.tokens.admin, { url: 'https://hooks.example.com/T000/B000', events: ['attention', 'session-ended'], format: 'slack' });
    expect(response.status).toBe(201);
    const created = (await response.json()) as CreateWebhookResponse;
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
    expect(created.webhook).toMatchObject({
      namespace: 'default',
      url: 'https://hooks.example.com/T000/B000',
      events: ['attention', 'session-ended'],
      format: 'slack',
      failures: 0,
      pausedAt: null,
      delivered: 0,
    });
    const listed = await list();
    expect(listed).toEqual([created.webhook]);
    const listing = await (await call('GET', '/api/webhooks', hub.tokens.admin)).text();
    expect(listing).not.toContain(created.secret);
    expect(listing).not.toContain('secret');

    const removed = await call('DELETE', `/api/webhooks/${created.webhook.id}`, hub.tokens.admin);
    expect(removed.status).toBe(200);
    expect(await removed.json()).toEqual({ removed: created.webhook.id });
    expect(await list()).toEqual([]);
  });

  it('defaults to every event as JSON, and folds repeats and "all"', async () => {
    const plain = (await (await call('POST', '/api/webhooks', hub.tokens.admin, { url: 'http://127.0.0.1:9/x' })).json()) as CreateWebhookResponse;
    expect(plain.webhook).toMatchObject({ events: ['all'], format: 'json' });
    const folded = (await (await call('POST', '/api/webhooks', hub.tokens.admin, { url: 'http://127.0.0.1:9/y', events: ['turn', 'turn', 'all'] })).json()) as CreateWebhookResponse;
    expect(folded.webhook.events).toEqual(['all']);
    expect(plain.secret).not.toBe(folded.secret);
  });
});

describe('bad input', () => {
  it.each([
    ['not a url', /"not a url" is not an absolute URL/],
    ['ftp://example.com/hook', /must use http or https, not ftp/],
    ['javascript:alert(1)', /must use http or https, not javascript/],
    ['http://', /not an absolute URL/],
    ['file:///etc/passwd', /must use http or https, not file/],
    ['https://user:pw@example.com/hook', /must not carry a user name or password/],
    ['', /not an absolute URL/],
  ])('refuses the URL %j with 400 naming the field, and stores nothing', async (url, message) => {
    const response = await call('POST', '/api/webhooks', hub.tokens.admin, { url });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string; message: string };
    expect(body.error).toBe('invalid_payload');
    expect(body.message).toMatch(/^body url: /);
    expect(body.message).toMatch(message);
    expect(await list()).toEqual([]);
  });

  it('refuses a missing URL, an unknown event name or format, naming the field', async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /^body url: /],
      [{ url: 'https://example.com', events: ['session-exploded'] }, /^body events\.0: /],
      [{ url: 'https://example.com', events: [] }, /^body events: name at least one event/],
      [{ url: 'https://example.com', format: 'teams' }, /^body format: /],
    ];
    for (const [body, message] of cases) {
      const response = await call('POST', '/api/webhooks', hub.tokens.admin, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(((await response.json()) as { message: string }).message).toMatch(message);
    }
    expect(await list()).toEqual([]);
  });

  it('answers 404 for an unknown id, and for another namespace\'s webhook (which stays)', async () => {
    for (const method of ['DELETE', 'POST'] as const) {
      const path = method === 'DELETE' ? '/api/webhooks/wh_nope' : '/api/webhooks/wh_nope/resume';
      const response = await call(method, path, hub.tokens.admin);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: 'webhook_not_found', message: 'no webhook wh_nope in this namespace (session-hub webhook list shows them)' });
    }
    const theirs = (await (await call('POST', '/api/webhooks', hub.tokens.otherAdmin, { url: 'https://other.example.com' })).json()) as CreateWebhookResponse;
    expect(theirs.webhook.namespace).toBe('other');
    expect(await list()).toEqual([]);
    expect((await call('DELETE', `/api/webhooks/${theirs.webhook.id}`, hub.tokens.admin)).status).toBe(404);
    expect((await call('POST', `/api/webhooks/${theirs.webhook.id}/resume`, hub.tokens.admin)).status).toBe(404);
    expect((await list(hub.tokens.otherAdmin)).map((w) => w.id)).toEqual([theirs.webhook.id]);
  });

  it('refuses runner and dashboard tokens (403) and no token (401) on every route, changing nothing', async () => {
    const created = (await (await call('POST', '/api/webhooks', hub.tokens.admin, { url: 'https://example.com/a' })).json()) as CreateWebhookResponse;
    const routes: [string, string, unknown?][] = [
      ['GET', '/api/webhooks'],
      ['POST', '/api/webhooks', { url: 'https://example.com/b' }],
      ['DELETE', `/api/webhooks/${created.webhook.id}`],
      ['POST', `/api/webhooks/${created.webhook.id}/resume`],
    ];
    for (const [method, path, body] of routes) {
      for (const token of [hub.tokens.runner, hub.tokens.dashboard]) {
        const response = await call(method, path, token, body);
        expect(response.status, `${method} ${path}`).toBe(403);
        expect(((await response.json()) as { message: string }).message).toMatch(/this needs an admin token/);
      }
      expect((await call(method, path, undefined, body)).status).toBe(401);
    }
    expect((await list()).map((w) => w.id)).toEqual([created.webhook.id]);
  });
});
