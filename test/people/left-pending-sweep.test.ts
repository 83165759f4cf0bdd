/**
 * Issue 26.12 in a cluster: a hub process killed while a hook waited leaves its approval pending with
 * no waiter, and the other processes keep running (no restart to expire it). The sweep ends such an
 * approval `interrupted` once it is past its waiter's end (`expiresAt`); one whose waiter may still be
 * waiting is left alone. A real hub; the approvals opened through the service as the hook path does.
 */
import { describe, expect, it } from 'vitest';
import { openApproval } from '../../hub/people/approvals.js';
import { LEFT_PENDING_SLACK_MS } from '../../hub/people/left-pending.js';
import type { Actor } from '../../hub/services/deps.js';
import { listApprovals } from '../../hub/store/approvals.js';
import { closeTestHubsAfterEach, startTestHub } from '../helpers/hub.js';

closeTestHubsAfterEach();
const hookActor: Actor = { namespace: 'default', role: 'runner', by: 'runner' };

describe('the sweep ends approvals nobody can be waiting on', () => {
  it('past its waiter\'s end: interrupted by the sweep (its waiter\'s hub process is gone); still within it: left pending', async () => {
    const hub = await startTestHub();
    const start = await fetch(`${hub.url}/api/hooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.tokens.runner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ events: [{ id: 'evt-left-1', seq: 0, flavor: 'claude', firedAt: Date.now(), payload: { hook_event_name: 'SessionStart', session_id: 'left-pending', cwd: '/w', source: 'startup' } }] }),
    });
    expect(start.status).toBe(200);
    const { results } = (await start.json()) as { results: { sid: string }[] };
    const sid = results[0]!.sid;
    const now = Date.now();
    const orphan = await openApproval(hub.deps, hookActor, { sid, tool: 'Bash', input: { command: 'ls' }, expiresAt: now - LEFT_PENDING_SLACK_MS - 1000 });
    const live = await openApproval(hub.deps, hookActor, { sid, tool: 'Bash', input: { command: 'pwd' }, expiresAt: now + 60_000 });
    await hub.sweepNow();
    const byId = new Map((await listApprovals(hub.deps.store, sid)).map((a) => [a.approvalId, a.status]));
    expect(byId.get(orphan.approvalId)).toBe('interrupted');
    expect(byId.get(live.approvalId)).toBe('pending');
  });
});
