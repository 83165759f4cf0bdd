/**
 * Tool approvals (docs/attention.md) on a real hub: opened through the service (as the hook path
 * will), decided over real HTTP, waited for through the service; dashboards see each change live
 * (`approval` bodies) and the session's attention follows. Roles, tenants, unknown ids, second
 * decisions, expired and superseded approvals, oversized messages: each answered clearly,
 * changing nothing. Audit: the history route lists decisions with the deciding token's public id.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Approval, ApprovalsResponse } from '../../shared/protocol/attention.js';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import type { HistoryResponse } from '../../shared/protocol/http.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { waitForDecision } from '../../hub/people/approval-wait.js';
import { decideApproval, openApproval, supersedeOpen } from '../../hub/people/approvals.js';
import type { Actor } from '../../hub/services/deps.js';
import { collectUpdates, connectDashboard, connectRunner, startSession, waitFor, type RunnerSocket } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';

let hub: TestHub;
let runner: RunnerSocket;
useTestHub(async (started) => {
  hub = started;
  runner = await connectRunner(hub.url, hub.tokens.runner);
});

const hookActor: Actor = { namespace: 'default', role: 'runner', by: 'runner' };
const tokenId = (token: string) => createHash('sha256').update(token).digest('hex').slice(0, 12);

async function http(method: 'GET' | 'POST', path: string, token: string, body?: unknown) {
  const response = await fetch(`${hub.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const decide = (sid: string, approvalId: string, body: unknown, token: string = hub.tokens.operator) => http('POST', `/api/sessions/${sid}/approvals/${approvalId}`, token, body);
const listApprovals = async (sid: string, token: string = hub.tokens.dashboard) => (await http('GET', `/api/sessions/${sid}/approvals`, token)).body as unknown as ApprovalsResponse;
const snapshot = async (sid: string) => (await http('GET', `/api/sessions/${sid}`, hub.tokens.dashboard)).body as unknown as SessionSnapshot;

async function openOne(sid: string, tool = 'Bash', input: unknown = { command: 'rm -rf node_modules' }) {
  return openApproval(hub.deps, hookActor, { sid, tool, input: input as never, cwd: '/work/app', message: `Claude needs your permission to use ${tool}` });
}

/** Everything a decision could have changed, to show a refused one changed nothing. */
async function everything(sid: string) {
  return { session: await snapshot(sid), approvals: await listApprovals(sid), history: (await http('GET', `/api/sessions/${sid}/history`, hub.tokens.dashboard)).body };
}

describe('open, wait, decide', () => {
  it('an operator allows over HTTP: the waiter gets the decision, dashboards see it live, attention goes from permission to none', async () => {
    const session = await startSession(runner);
    const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
    const updates = collectUpdates(dashboard);
    await dashboard.emitWithAck('subscribe', {});

    const approval = await openOne(session.sid);
    expect(approval).toMatchObject({ status: 'pending', tool: 'Bash', input: { command: 'rm -rf node_modules' }, inputTruncated: false, cwd: '/work/app', decidedAt: null, decidedBy: null });
    expect((await snapshot(session.sid)).attention).toMatchObject({ kind: 'permission', tool: 'Bash', message: 'Claude needs your permission to use Bash' });
    const waiting = waitForDecision(hub.deps, approval.approvalId, 10_000);

    const answer = await decide(session.sid, approval.approvalId, { decision: 'allow', message: 'go ahead' });
    expect(answer).toEqual({ status: 200, body: { ...approval, status: 'allowed', decidedAt: expect.any(Number), decidedBy: tokenId(hub.tokens.operator), message: 'go ahead' } });
    expect(await waiting).toEqual(answer.body);
    expect((await snapshot(session.sid)).attention).toBeNull();

    const bodies = () => updates.map((e: UpdateEvent) => e.body);
    await waitFor(() => bodies().filter((b) => b.t === 'approval').length === 2, 3000, 'two approval broadcasts');
    expect(bodies().filter((b) => b.t === 'approval').map((b) => b.t === 'approval' && b.approval.status)).toEqual(['pending', 'allowed']);
    expect(bodies().find((b) => b.t === 'approval')).toEqual({ t: 'approval', sid: session.sid, approval });
  });

  it('an admin denies with a message; GET approvals lists pending first (oldest first), then decided (latest decision first)', async () => {
    const session = await startSession(runner);
    const first = await openOne(session.sid, 'Bash');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await openOne(session.sid, 'Edit');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const third = await openOne(session.sid, 'Write');
    expect((await decide(session.sid, second.approvalId, { decision: 'deny', message: 'not that file' }, hub.tokens.admin)).body).toMatchObject({ status: 'denied', message: 'not that file', decidedBy: tokenId(hub.tokens.admin) });
    // one is still pending: attention stays permission
    expect((await snapshot(session.sid)).attention).toMatchObject({ kind: 'permission' });
    const listed = await listApprovals(session.sid);
    expect(listed.approvals.map((a) => [a.tool, a.status])).toEqual([['Bash', 'pending'], ['Write', 'pending'], ['Edit', 'denied']]);
    await decide(session.sid, first.approvalId, { decision: 'allow' });
    await decide(session.sid, third.approvalId, { decision: 'deny' });
    expect((await listApprovals(session.sid)).approvals.map((a) => a.tool)).toEqual(['Write', 'Bash', 'Edit']);
    expect((await snapshot(session.sid)).attention).toBeNull();
  });

  it('cuts a tool input past 64 KiB of JSON and says so, in the store and the broadcast', async () => {
    const session = await startSession(runner);
    const approval = await openOne(session.sid, 'Write', { file_path: '/a', content: 'x'.repeat(70_000) });
    expect(approval.inputTruncated).toBe(true);
    expect(typeof approval.input).toBe('string');
    expect(Buffer.byteLength(approval.input as string)).toBe(64 * 1024);
    expect((await listApprovals(session.sid)).approvals[0]).toEqual(approval);
  });
});

describe('audit', () => {
  it('the history route lists each decision with time, message and the deciding token\'s public id, never its secret', async () => {
    const session = await startSession(runner);
    const approval = await openOne(session.sid);
    await decide(session.sid, approval.approvalId, { decision: 'deny', message: 'use npm ci instead' });
    const history = (await http('GET', `/api/sessions/${session.sid}/history`, hub.tokens.dashboard)).body as unknown as HistoryResponse;
    expect(history.decisions).toEqual([expect.objectContaining({ approvalId: approval.approvalId, status: 'denied', message: 'use npm ci instead', decidedBy: tokenId(hub.tokens.operator), decidedAt: expect.any(Number) })]);
    expect(JSON.stringify(history)).not.toContain(hub.tokens.operator);
    // a pending or expired approval is no decision
    await openOne(session.sid);
    expect(((await http('GET', `/api/sessions/${session.sid}/history`, hub.tokens.dashboard)).body as unknown as HistoryResponse).decisions).toHaveLength(1);
  });
});

describe('who may decide, and bad input', () => {
  it('dashboard and runner tokens get 403, another tenant 404, no token 401: nothing changes', async () => {
    const session = await startSession(runner);
    const approval = await openOne(session.sid);
    const before = await everything(session.sid);
    for (const token of [hub.tokens.dashboard, hub.tokens.runner]) {
      expect(await decide(session.sid, approval.approvalId, { decision: 'allow' }, token)).toEqual({ status: 403, body: { error: 'forbidden', message: expect.stringContaining('this needs an operator or admin token') } });
    }
    for (const token of [hub.tokens.otherOperator, hub.tokens.otherAdmin]) {
      expect(await decide(session.sid, approval.approvalId, { decision: 'allow' }, token)).toEqual({ status: 404, body: { error: 'session_not_found', message: expect.any(String) } });
      expect((await http('GET', `/api/sessions/${session.sid}/approvals`, token)).status).toBe(404);
    }
    const anonymous = await fetch(`${hub.url}/api/sessions/${session.sid}/approvals/${approval.approvalId}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"decision":"allow"}' });
    expect(anonymous.status).toBe(401);
    expect(await everything(session.sid)).toEqual(before);
    // an operator may read what a dashboard may
    expect((await http('GET', `/api/sessions/${session.sid}`, hub.tokens.operator)).status).toBe(200);
  });

  it('unknown approval ids, another session\'s approval, bad decisions and oversized messages: 404 / 400 naming what is wrong, nothing changes', async () => {
    const session = await startSession(runner);
    const other = await startSession(runner);
    const approval = await openOne(session.sid);
    const elsewhere = await openOne(other.sid);
    const before = await everything(session.sid);
    expect(await decide(session.sid, 'no-such-approval', { decision: 'allow' })).toEqual({ status: 404, body: { error: 'approval_not_found', message: expect.stringContaining('no-such-approval') } });
    expect(await decide(session.sid, elsewhere.approvalId, { decision: 'allow' })).toMatchObject({ status: 404, body: { error: 'approval_not_found' } });
    expect(await decide('no-such-session', approval.approvalId, { decision: 'allow' })).toMatchObject({ status: 404, body: { error: 'session_not_found' } });
    const bad: [unknown, RegExp][] = [
      [{ decision: 'maybe' }, /decision/],
      [{}, /decision/],
      [{ decision: 'allow', message: 'm'.repeat(4097) }, /message/],
      [{ decision: 'deny', message: 7 }, /message/],
    ];
    for (const [body, field] of bad) {
      expect(await decide(session.sid, approval.approvalId, body), JSON.stringify(body).slice(0, 60)).toEqual({ status: 400, body: { error: 'invalid_payload', message: expect.stringMatching(field) } });
    }
    expect(await everything(session.sid)).toEqual(before);
    expect((await listApprovals(other.sid)).approvals[0]).toMatchObject({ status: 'pending' });
  });

  it('a second decision is 409 with the first decision in the body, and changes nothing', async () => {
    const session = await startSession(runner);
    const approval = await openOne(session.sid);
    const first = await decide(session.sid, approval.approvalId, { decision: 'deny', message: 'no' });
    const before = await everything(session.sid);
    for (const decision of ['allow', 'deny']) {
      expect(await decide(session.sid, approval.approvalId, { decision }, hub.tokens.admin)).toEqual({
        status: 409,
        body: { error: 'conflict', message: expect.stringContaining('already decided: denied'), approval: first.body },
      });
    }
    expect(await everything(session.sid)).toEqual(before);
  });

  it('two deciders at once: exactly one wins, the other gets 409 with the winner', async () => {
    const session = await startSession(runner);
    const approval = await openOne(session.sid);
    const answers = await Promise.all([decide(session.sid, approval.approvalId, { decision: 'allow' }), decide(session.sid, approval.approvalId, { decision: 'deny' }, hub.tokens.admin)]);
    const won = answers.filter((a) => a.status === 200);
    expect(won).toHaveLength(1);
    expect(answers.find((a) => a.status === 409)!.body.approval).toEqual(won[0]!.body);
  });
});

describe('expired and superseded', () => {
  it('nobody decides within the wait: the waiter gets null, the approval ends expired, a late decision is 409 and changes nothing', async () => {
    const session = await startSession(runner);
    const approval = await openOne(session.sid);
    expect(await waitForDecision(hub.deps, approval.approvalId, 150)).toBeNull();
    const expired = (await listApprovals(session.sid)).approvals[0]!;
    expect(expired).toMatchObject({ status: 'expired', decidedAt: expect.any(Number), decidedBy: null });
    // the agent now asks in its terminal: attention stays permission
    expect((await snapshot(session.sid)).attention).toMatchObject({ kind: 'permission' });
    const before = await everything(session.sid);
    expect(await decide(session.sid, approval.approvalId, { decision: 'allow' })).toEqual({
      status: 409,
      body: { error: 'conflict', message: expect.stringContaining('expired'), approval: expired },
    });
    expect(await everything(session.sid)).toEqual(before);
    // waiting again on an ended approval answers at once
    expect(await waitForDecision(hub.deps, approval.approvalId, 5000)).toBeNull();
  });

  it('the next tool event supersedes what is pending: waiters get null, a decision after it is 409', async () => {
    const session = await startSession(runner);
    const approval = await openOne(session.sid);
    const waiting = waitForDecision(hub.deps, approval.approvalId, 10_000);
    expect(await supersedeOpen(hub.deps, hookActor, session.sid)).toBe(1);
    expect(await waiting).toBeNull();
    expect((await listApprovals(session.sid)).approvals[0]).toMatchObject({ status: 'superseded' });
    expect(await decide(session.sid, approval.approvalId, { decision: 'allow' })).toMatchObject({ status: 409, body: { message: expect.stringContaining('superseded') } });
    expect(await supersedeOpen(hub.deps, hookActor, session.sid)).toBe(0);
  });

  it('ending the session supersedes its pending approvals and clears attention; a decision after it is 409', async () => {
    const session = await startSession(runner);
    const approval = await openOne(session.sid);
    const waiting = waitForDecision(hub.deps, approval.approvalId, 10_000, { pollMs: 20 });
    expect(await runner.emitWithAck('session-end', { sid: session.sid, reason: 'exit' })).toMatchObject({ ok: true, session: { attention: null } });
    expect(await waiting).toBeNull();
    expect((await listApprovals(session.sid)).approvals[0]).toMatchObject({ status: 'superseded' });
    expect(await decide(session.sid, approval.approvalId, { decision: 'allow' })).toMatchObject({ status: 409 });
  });

  it('a decision that races the timeout: whichever commits first is the answer, never both', async () => {
    const session = await startSession(runner);
    const results: (Approval | null)[] = [];
    for (let i = 0; i < 5; i++) {
      const approval = await openOne(session.sid);
      const waiting = waitForDecision(hub.deps, approval.approvalId, 20);
      const decided = decideApproval(hub.deps, { ...hookActor, by: 'user' }, { sid: session.sid, approvalId: approval.approvalId, decision: 'allow', decidedBy: 'race' }).catch(() => null);
      const [waited, direct] = await Promise.all([waiting, decided]);
      const stored = (await listApprovals(session.sid)).approvals.find((a) => a.approvalId === approval.approvalId)!;
      // the waiter's answer agrees with what is stored
      if (stored.status === 'allowed') expect(waited).toEqual(stored);
      else expect([stored.status, waited, direct]).toEqual(['expired', null, null]);
      results.push(waited);
    }
    expect(results).toHaveLength(5);
  });
});
