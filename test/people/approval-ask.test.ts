/**
 * `approval-ask` (a runner's tool call waiting for a person, by sid): a real hub and a real Socket.IO
 * runner client; the decision is made over HTTP as on the page.
 */
import { describe, expect, it } from 'vitest';
import type { Approval } from '../../shared/protocol/attention.js';
import { connectRunner, startSession, waitFor, type RunnerSocket } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';

let hub: TestHub;
let runner: RunnerSocket;
useTestHub(async (started) => {
  hub = started;
  runner = await connectRunner(hub.url, hub.tokens.runner);
});

async function approvals(sid: string): Promise<Approval[]> {
  const response = await fetch(`${hub.url}/api/sessions/${sid}/approvals`, { headers: { authorization: `Bearer ${hub.tokens.operator}` } });
  return ((await response.json()) as { approvals: Approval[] }).approvals;
}

async function decide(sid: string, body: Record<string, unknown>): Promise<void> {
  let id: string | undefined;
  await waitFor(async () => (id = (await approvals(sid)).find((a) => a.status === 'pending')?.approvalId) !== undefined, 5000, 'a pending approval');
  const response = await fetch(`${hub.url}/api/sessions/${sid}/approvals/${id}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${hub.tokens.operator}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
}

const ask = (sid: string, waitMs = 10_000) => runner.timeout(waitMs + 5000).emitWithAck('approval-ask', { sid, tool: 'Bash', toolUseId: 'tu-1', input: { command: 'touch x' }, cwd: '/p', waitMs });

describe('approval-ask', () => {
  it('opens the approval on the named session and answers with the decision made over HTTP', async () => {
    const session = await startSession(runner, { tag: 'agent-id-before-a-fresh-start' });
    const answered = ask(session.sid);
    await decide(session.sid, { decision: 'deny', message: 'not that file' });
    const ack = await answered;
    expect(ack).toMatchObject({ ok: true, decision: 'deny', message: 'not that file' });
    expect((await approvals(session.sid)).map((a) => [a.tool, a.toolUseId, a.cwd, a.status])).toEqual([['Bash', 'tu-1', '/p', 'denied']]);
  });

  it('answers decision null once nobody decided within waitMs, the approval expired', async () => {
    const session = await startSession(runner);
    expect(await ask(session.sid, 300)).toMatchObject({ ok: true, decision: null });
    const [expired] = await approvals(session.sid);
    expect(expired).toMatchObject({ status: 'expired', askedBy: 'runner' });
    // a late decision is refused saying what happened: the runner asked again, not the terminal
    const late = await fetch(`${hub.url}/api/sessions/${session.sid}/approvals/${expired!.approvalId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.tokens.operator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'allow' }),
    });
    expect(late.status).toBe(409);
    expect(((await late.json()) as { message: string }).message).toMatch(/the runner asked again/);
  });

  it('ends the approval abandoned when the runner goes away', async () => {
    const session = await startSession(runner);
    void ask(session.sid).catch(() => undefined);
    await waitFor(async () => (await approvals(session.sid)).length === 1, 5000, 'the approval opened');
    runner.disconnect();
    await waitFor(async () => (await approvals(session.sid))[0]?.status === 'abandoned', 5000, 'abandoned');
  });

  it('refuses an unknown sid with not_found, and says which field is wrong', async () => {
    expect(await ask('no-such-session')).toMatchObject({ ok: false, error: { code: 'not_found' } });
    const bad = await runner.emitWithAck('approval-ask', { sid: 'x', tool: '', toolUseId: null, input: null, cwd: null, waitMs: 1000 });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_payload', message: expect.stringMatching(/^tool: /) } });
  });
});
