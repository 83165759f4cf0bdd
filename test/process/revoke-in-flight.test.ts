/**
 * Issue 33 point 5, on a real hub process over real HTTP: a revoked token is refused at once by the
 * process that revoked it, and a long wait it holds (a hook's background waiter) ends with a 401 and
 * takes no message queued after, whether the revoke came over HTTP or from `token revoke` (another
 * process, heard on the next token refresh).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../shared/protocol/messages.js';
import type { ListSessionsResponse } from '../../shared/protocol/http.js';
import { testTaker, waitFor } from '../helpers/clients.js';
import { runCli } from '../helpers/cli.js';
import { spawnHub, stopHubsAfterEach, type HubProcess } from '../helpers/hub-process.js';

stopHubsAfterEach();

async function hubWithStoredTokens(): Promise<{ hub: HubProcess; admin: string }> {
  const hub = await spawnHub({ env: { SESSION_HUB_TOKENS: '' } });
  await waitFor(() => /admin\s+default\s+(shub_\S+)/.test(hub.output()), 5000, 'the generated tokens');
  return { hub, admin: /admin\s+default\s+(shub_\S+)/.exec(hub.output())![1]! };
}

function call(hub: HubProcess, method: string, path: string, token: string, body?: unknown): Promise<Response> {
  return fetch(`${hub.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function createToken(hub: HubProcess, admin: string, role: string): Promise<{ id: string; token: string }> {
  const response = await call(hub, 'POST', '/api/tokens', admin, { role });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; token: string };
}

/** A hook session reported with `token`; its sid. */
async function hookSession(hub: HubProcess, token: string, admin: string, tag: string): Promise<string> {
  const response = await call(hub, 'POST', '/api/hooks', token, {
    events: [{ id: randomUUID(), flavor: 'claude', firedAt: Date.now(), seq: 0, payload: { hook_event_name: 'SessionStart', session_id: tag, cwd: '/tmp', source: 'startup' }, taker: testTaker('hook') }],
  });
  expect(response.status).toBe(200);
  const { sessions } = (await (await call(hub, 'GET', '/api/sessions', admin)).json()) as ListSessionsResponse;
  return sessions.find((session) => session.tag === tag)!.sid;
}

/** A long background wait with `token`, begun now; resolves with its status and how long it took. */
function longWait(hub: HubProcess, token: string, tag: string) {
  const startedAt = Date.now();
  return call(hub, 'POST', '/api/hooks/wait', token, { flavor: 'claude', tag, event: 'Stop', waitMs: 60_000, taker: testTaker('hook') }).then(async (response) => ({
    status: response.status,
    body: (await response.json()) as { error?: string; message?: string },
    tookMs: Date.now() - startedAt,
  }));
}

async function queueAndRead(hub: HubProcess, admin: string, sid: string): Promise<Message> {
  const posted = await call(hub, 'POST', `/api/sessions/${sid}/messages`, admin, { text: 'after the revoke' });
  expect(posted.status).toBe(201);
  const { message } = (await posted.json()) as { message: Message };
  // the old waiter, were it alive, polls every second: give it that chance
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const { messages } = (await (await call(hub, 'GET', `/api/sessions/${sid}/messages`, admin)).json()) as { messages: Message[] };
  return messages.find((m) => m.id === message.id)!;
}

describe('revoking a token with requests in flight (real hub process)', () => {
  it('the revoking process refuses the token on the very next request', async () => {
    const { hub, admin } = await hubWithStoredTokens();
    const sid = await hookSession(hub, admin, admin, randomUUID());
    const operator = await createToken(hub, admin, 'operator');
    expect((await call(hub, 'POST', `/api/sessions/${sid}/messages`, operator.token, { text: 'before' })).status).toBe(201);
    expect((await call(hub, 'DELETE', `/api/tokens/${operator.id}`, admin)).status).toBe(200);
    const after = await call(hub, 'POST', `/api/sessions/${sid}/messages`, operator.token, { text: 'after' });
    expect(after.status).toBe(401);
  });

  it('a long wait of a token revoked over HTTP is answered 401 at once and takes nothing queued after', async () => {
    const { hub, admin } = await hubWithStoredTokens();
    const agent = await createToken(hub, admin, 'agent');
    const tag = randomUUID();
    const sid = await hookSession(hub, agent.token, admin, tag);
    const waiting = longWait(hub, agent.token, tag);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await call(hub, 'DELETE', `/api/tokens/${agent.id}`, admin)).status).toBe(200);
    const ended = await waiting;
    expect(ended.status).toBe(401);
    expect(ended.body).toMatchObject({ error: 'unauthorized', message: 'this token was revoked or expired while its request waited' });
    expect(ended.tookMs).toBeLessThan(2000);
    expect((await queueAndRead(hub, admin, sid)).state).toBe('queued');
  });

  it('a long wait of a token revoked by `token revoke` (another process) ends within the token refresh', async () => {
    const { hub, admin } = await hubWithStoredTokens();
    const agent = await createToken(hub, admin, 'agent');
    const tag = randomUUID();
    const sid = await hookSession(hub, agent.token, admin, tag);
    const waiting = longWait(hub, agent.token, tag);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const revoked = await runCli(['token', 'revoke', agent.id, '--data', hub.dataDir]);
    expect(revoked.code, revoked.stderr).toBe(0);
    const ended = await waiting;
    expect(ended.status).toBe(401);
    expect(ended.tookMs).toBeLessThan(8000);
    expect((await queueAndRead(hub, admin, sid)).state).toBe('queued');
  });
});
