/**
 * The reach a page reads is a waiter connected now on any hub process (issue 34): a message waiter
 * (the `--wake` hook's long poll) waits on process A; process B's GET …/messages says `wake` with
 * its end, asking A through the Redis adapter; once the waiter's connection drops, both say `stop`.
 */
import { describe, expect, it } from 'vitest';
import type { MessagesResponse } from '../../shared/protocol/messages.js';
import type { ListSessionsResponse } from '../../shared/protocol/http.js';
import { waitFor } from '../helpers/clients.js';
import type { HubProcess } from '../helpers/hub-process.js';
import { fixture } from '../hook/run-cli.js';
import { startTwoHubs, twoHubsAfterEach } from './two-hubs.js';

twoHubsAfterEach();

const stop = { ...fixture('claude-session.json').find((p) => p.hook_event_name === 'Stop')!, session_id: 'two-process-waiter' };

describe('the reach across two hub processes', () => {
  it('a waiter on A makes B say wake, naming its end; its connection gone, both say stop', { timeout: 60_000 }, async () => {
    const { a, b, tokens } = await startTwoHubs();
    const runnerHeaders = { authorization: `Bearer ${tokens.runner}`, 'content-type': 'application/json' };
    const hooked = await fetch(`${a.url}/api/hooks`, { method: 'POST', headers: runnerHeaders, body: JSON.stringify({ events: [{ id: 'two-1', flavor: 'claude', firedAt: Date.now(), seq: 1, payload: stop }] }) });
    expect(hooked.status, await hooked.text()).toBe(200);
    const get = async <T>(hub: HubProcess, path: string) => (await (await fetch(`${hub.url}${path}`, { headers: { authorization: `Bearer ${tokens.dashboard}` } })).json()) as T;
    const sid = (await get<ListSessionsResponse>(b, '/api/sessions')).sessions.find((s) => s.tag === 'two-process-waiter')!.sid;
    const reachOn = async (hub: HubProcess) => {
      const { reach, wakeUntil } = await get<MessagesResponse>(hub, `/api/sessions/${sid}/messages`);
      return { reach, wakeUntil };
    };
    // the stop is stored, no waiter waits: no process says "now"
    expect(await reachOn(b)).toEqual({ reach: 'stop', wakeUntil: undefined });

    const waiter = new AbortController();
    const startedAt = Date.now();
    const waiting = fetch(`${a.url}/api/hooks/wait`, {
      method: 'POST',
      headers: runnerHeaders,
      body: JSON.stringify({ flavor: 'claude', tag: 'two-process-waiter', event: 'Stop', waitMs: 600_000, taker: { key: 'k'.repeat(40), process: 'two-process-test' } }),
      signal: waiter.signal,
    }).catch((error: unknown) => error);
    await waitFor(async () => (await reachOn(a)).reach === 'wake', 5000, 'the waiter waits on A');
    const onB = await reachOn(b);
    expect(onB.reach).toBe('wake');
    expect(onB.wakeUntil).toBeGreaterThanOrEqual(startedAt + 600_000 - 1000);
    expect(onB.wakeUntil).toBeLessThanOrEqual(Date.now() + 600_000 + 1000);

    waiter.abort();
    await waiting;
    await waitFor(async () => (await reachOn(a)).reach === 'stop' && (await reachOn(b)).reach === 'stop', 5000, 'both say stop');
  });
});
