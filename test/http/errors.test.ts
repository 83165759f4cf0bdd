/**
 * Spec sections 11 and 12 over HTTP: error bodies are `{ error, message }` with the spec's codes,
 * authentication is decided before the request's payload is looked at, and the per-token rate
 * limit also covers HTTP calls made with that token.
 */
import { describe, expect, it } from 'vitest';
import { connectRunner, startSession } from '../helpers/clients.js';
import { closeTestHubsAfterEach, startTestHub, type TestHub } from '../helpers/hub.js';

let hub: TestHub | undefined;
closeTestHubsAfterEach();

async function call(url: string, path: string, token: string | undefined, method = 'GET', body?: unknown) {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('HTTP errors', () => {
  it('answers 401 / 403 before looking at a malformed body or query', async () => {
    hub = await startTestHub();
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner);
    const archive = `/api/sessions/${session.sid}/archive`;

    // no token, and a body that would be invalid: the missing token is what is wrong
    expect(await call(hub.url, archive, undefined, 'POST', { reason: 42 })).toEqual({ status: 401, body: { error: 'unauthorized', message: expect.any(String) } });
    expect(await call(hub.url, '/api/sessions?limit=abc', undefined)).toEqual({ status: 401, body: { error: 'unauthorized', message: expect.any(String) } });
    // a dashboard token may not archive, whatever it sends
    expect(await call(hub.url, archive, hub.tokens.dashboard, 'POST', { reason: 42 })).toEqual({ status: 403, body: { error: 'forbidden', message: expect.any(String) } });
    expect(await call(hub.url, `/api/sessions/${session.sid}/repair`, hub.tokens.runner, 'POST', { keys: 'x' })).toEqual({ status: 403, body: { error: 'forbidden', message: expect.any(String) } });

    // with a token that may do it, the payload is validated
    const bad = await call(hub.url, archive, hub.tokens.runner, 'POST', { reason: 42 });
    expect(bad).toEqual({ status: 400, body: { error: 'invalid_payload', message: expect.stringContaining('reason') } });
    expect(await call(hub.url, '/api/sessions/no-such-session', hub.tokens.dashboard)).toEqual({ status: 404, body: { error: 'session_not_found', message: expect.any(String) } });
    // the rejected archive changed nothing
    const after = await call(hub.url, `/api/sessions/${session.sid}`, hub.tokens.dashboard);
    expect(after.body.lifecycle).toMatchObject({ state: 'running' });
  });

  it('rate-limits HTTP calls per token (429 rate_limited), leaving other tokens and /healthz alone', async () => {
    hub = await startTestHub({ config: { tokenRateLimitPerSecond: 0.001, tokenRateLimitBurst: 5 } });
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 8; i++) {
      const response = await call(hub.url, '/api/sessions', hub.tokens.dashboard);
      statuses.push(response.status);
      if (response.status === 429) limited = response;
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    expect(limited!.body).toEqual({ error: 'rate_limited', message: expect.any(String) });

    // another token has its own bucket; health checks need no token and are not limited
    expect((await call(hub.url, '/api/sessions', hub.tokens.runner)).status).toBe(200);
    expect((await call(hub.url, '/healthz', undefined)).status).toBe(200);

    // the bucket is the token's: the same token's socket events are limited too
    const runner = await connectRunner(hub.url, hub.tokens.admin);
    for (let i = 0; i < 5; i++) await call(hub.url, '/api/sessions', hub.tokens.admin);
    const ack = await runner.emitWithAck('session-start', { tag: 't', flavor: 'claude', source: 'startup' });
    expect(ack).toMatchObject({ ok: false, error: { code: 'rate_limited' } });
  });
});

describe('HTTP edges', () => {
  async function raw(url: string, path: string, headers: Record<string, string> = {}) {
    const response = await fetch(`${url}${path}`, { headers });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('takes the Bearer scheme in any letter case and with any whitespace after it (RFC 7235); a bare token stays 401', async () => {
    hub = await startTestHub();
    for (const scheme of ['Bearer ', 'bearer ', 'BEARER ', 'Bearer\t', 'Bearer   ']) {
      expect(await raw(hub.url, '/api/whoami', { authorization: `${scheme}${hub.tokens.dashboard}` })).toEqual({ status: 200, body: { role: 'dashboard', namespace: 'default' } });
    }
    for (const authorization of [hub.tokens.dashboard, `Basic ${hub.tokens.dashboard}`, `Bearer${hub.tokens.dashboard}`, 'Bearer ']) {
      expect(await raw(hub.url, '/api/whoami', { authorization })).toEqual({ status: 401, body: { error: 'unauthorized', message: expect.any(String) } });
    }
  });

  it("answers an unknown route, an over-long path parameter and a malformed URL with the spec's { error, message } body", async () => {
    hub = await startTestHub();
    const auth = { authorization: `Bearer ${hub.tokens.dashboard}` };
    expect(await raw(hub.url, '/api/nope', auth)).toEqual({ status: 404, body: { error: 'not_found', message: expect.stringContaining('/api/nope') } });
    expect(await raw(hub.url, `/api/sessions/${'x'.repeat(500)}`, auth)).toEqual({ status: 400, body: { error: 'invalid_payload', message: expect.any(String) } });
    expect(await raw(hub.url, '/api/sessions/%ZZ', auth)).toEqual({ status: 400, body: { error: 'invalid_payload', message: expect.any(String) } });
  });
});
