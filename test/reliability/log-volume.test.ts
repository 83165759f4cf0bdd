/**
 * Issue 22 point 3: at `info` the hub logs what an operator needs (its start, tokens made, errors,
 * sweeps that changed something), not a line per HTTP request or socket connection; those are at
 * `debug`. Real hub processes, their whole output read.
 */
import { describe, expect, it } from 'vitest';
import { connectDashboard, connectRunner, closeAllClients, waitFor } from '../helpers/clients.js';
import { spawnHub, stopHubsAfterEach } from '../helpers/hub-process.js';

stopHubsAfterEach();

/** The hub's JSON log lines so far, parsed (non-JSON lines skipped). */
function logLines(output: string): Record<string, unknown>[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A busy minute: API calls (one refused), probes and scrapes, sockets coming and going. */
async function busyMinute(hub: { url: string; tokens: { dashboard: string; runner: string } }): Promise<void> {
  for (let i = 0; i < 20; i += 1) {
    expect((await fetch(`${hub.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${hub.url}/metrics`)).status).toBe(200);
    const listed = await fetch(`${hub.url}/api/sessions`, { headers: { authorization: `Bearer ${hub.tokens.dashboard}` } });
    expect(listed.status).toBe(200);
    await listed.arrayBuffer();
  }
  expect((await fetch(`${hub.url}/api/sessions?token=not-a-real-token-123`)).status).toBe(401);
  for (let i = 0; i < 5; i += 1) {
    await connectDashboard(hub.url, hub.tokens.dashboard);
    await connectRunner(hub.url, hub.tokens.runner);
  }
  closeAllClients();
}

describe('log volume of a long-running hub', () => {
  it('at info: no line per request or connection; the start and a token made are there', async () => {
    const hub = await spawnHub({ env: { LOG_LEVEL: 'info', SESSION_HUB_TOKENS: '' } });
    // the first start's tokens are printed just after the listening line
    await waitFor(() => hub.output().includes('Sign in: '), 10_000, 'the printed tokens');
    const admin = /admin {5}default {2}(\S+)/.exec(hub.output())?.[1];
    expect(admin).toBeDefined();
    const tokens = { ...hub.tokens, dashboard: /dashboard default {2}(\S+)/.exec(hub.output())![1]!, runner: /runner {4}default {2}(\S+)/.exec(hub.output())![1]! };
    await busyMinute({ url: hub.url, tokens });
    const made = await fetch(`${hub.url}/api/tokens`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify({ role: 'dashboard' }) });
    expect(made.status).toBe(201);
    await hub.stop();

    const lines = logLines(hub.output());
    const messages = lines.map((line) => line.msg);
    // 65 requests and 10 connections above: none of them is a line of its own
    expect(messages.filter((msg) => /request|connected|disconnected/.test(String(msg)))).toEqual([]);
    expect(lines.filter((line) => JSON.stringify(line).includes('/api/'))).toEqual([]);
    expect(messages).toContain('token created');
    expect(messages.some((msg) => String(msg).startsWith('session hub listening on'))).toBe(true);
    expect(lines.length).toBeLessThanOrEqual(8);
    expect(hub.output()).not.toContain('not-a-real-token-123');
  });

  it('at debug: each API request has its line with its status, its query token left out; probes and scrapes still none', async () => {
    const hub = await spawnHub({ env: { LOG_LEVEL: 'debug' } });
    await busyMinute(hub);
    await hub.stop();

    const lines = logLines(hub.output());
    const completed = lines.filter((line) => line.msg === 'request completed');
    const mentioning = (path: string) => completed.filter((line) => JSON.stringify(line).includes(path));
    expect(mentioning('/healthz')).toEqual([]);
    expect(mentioning('/metrics')).toEqual([]);
    expect(mentioning('/api/sessions').length).toBe(21);
    expect(completed.some((line) => line.statusCode === 401)).toBe(true);
    expect(lines.filter((line) => line.msg === 'dashboard connected')).toHaveLength(5);
    expect(hub.output()).not.toContain('not-a-real-token-123');
  });
});
