/**
 * Issue 33 point 2: the token agents carry (role `agent`, readable by the agent's own tools) reports
 * hook events and takes its session's messages over real HTTP, and is refused everything else with
 * a 403 naming why: no page (dashboard socket), no runner socket, no reads, no resume or archive.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { HookWaitResponse } from '../../shared/protocol/messages.js';
import { handshakeError, testTaker } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { postMessage } from '../helpers/messages.js';
import { hubReader } from '../hook/run-cli.js';

let hub: TestHub;
useTestHub((started) => (hub = started));
const { sessionByTag } = hubReader(() => hub);

function call(method: string, path: string, token: string, body?: unknown): Promise<Response> {
  return fetch(`${hub.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** A Claude Code session started through the hook route with the agent token; its snapshot. */
async function sessionOfAgent(tag: string) {
  const response = await call('POST', '/api/hooks', hub.tokens.agent, {
    events: [{ id: randomUUID(), flavor: 'claude', firedAt: Date.now(), seq: 0, payload: { hook_event_name: 'SessionStart', session_id: tag, cwd: '/tmp', source: 'startup' }, taker: testTaker('hook') }],
  });
  expect(response.status).toBe(200);
  return sessionByTag(tag);
}

describe('the agent token', () => {
  it('reports hook events and takes its own session messages', async () => {
    const tag = randomUUID();
    const session = await sessionOfAgent(tag);
    expect(session.lifecycle.state).toBe('running');
    await postMessage(hub, session.sid, 'run the linter too');
    const waited = await call('POST', '/api/hooks/wait', hub.tokens.agent, { flavor: 'claude', tag, event: 'Stop', waitMs: 2000, taker: testTaker('hook') });
    expect(waited.status).toBe(200);
    expect(((await waited.json()) as HookWaitResponse).messages.map((m) => m.text)).toEqual(['run the linter too']);
  });

  it('is refused with a 403 naming its limits for every read, resume, archive, push and token action', async () => {
    const session = await sessionOfAgent(randomUUID());
    const sid = session.sid;
    const forbidden: [string, string, unknown?][] = [
      ['GET', '/api/sessions'],
      ['GET', `/api/sessions/${sid}`],
      ['GET', `/api/sessions/${sid}/history`],
      ['GET', `/api/sessions/${sid}/turns`],
      ['GET', `/api/sessions/${sid}/messages`],
      ['GET', `/api/sessions/${sid}/approvals`],
      ['POST', `/api/sessions/${sid}/messages`, { text: 'hello' }],
      ['POST', `/api/sessions/${sid}/resume`, {}],
      ['POST', `/api/sessions/${sid}/archive`, {}],
      ['GET', '/api/usage'],
      ['GET', '/api/host'],
      ['GET', '/api/push/key'],
      ['GET', '/api/tokens'],
      ['GET', '/api/webhooks'],
    ];
    for (const [method, path, body] of forbidden) {
      const response = await call(method, path, hub.tokens.agent, body);
      expect({ path, status: response.status }).toEqual({ path, status: 403 });
      const { error, message } = (await response.json()) as { error: string; message: string };
      expect(error).toBe('forbidden');
      expect(message).toContain('yours is an agent token (an agent token only reports hook events and takes its messages)');
    }
    // the same reads with a runner token still answer: existing SDK runners keep working
    expect((await call('GET', `/api/sessions/${sid}`, hub.tokens.runner)).status).toBe(200);
  });

  it('cannot sign in to the page nor open a runner socket', async () => {
    expect(await handshakeError(hub.url, '/dashboard', { token: hub.tokens.agent })).toBe('forbidden');
    expect(await handshakeError(hub.url, '/runner', { token: hub.tokens.agent })).toBe('forbidden');
  });
});
