/**
 * An agent's question answered on the page (docs/messages.md, "Questions and plans"), through real
 * `session-hub hook claude --ask` processes (the synchronous PreToolUse entry install matches to
 * AskUserQuestion and ExitPlanMode) against a real hub: the hook opens an approval carrying the
 * questions and waits; `POST …/approvals/:id { decision: 'allow', answers }` makes it print
 * PreToolUse allow with `updatedInput` { questions, answers }; an answer that is none of the options
 * is 400 and changes nothing; deny prints deny with the message; no decision in time prints
 * nothing. The same tool call through the background observer (no --ask) never waits.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Approval } from '../../shared/protocol/attention.js';
import { runCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/clients.js';
import type { TestHub } from '../helpers/hub.js';
import { useBridgeHub } from './run-cli.js';

let hub: TestHub;
const bridge = useBridgeHub((started) => (hub = started.hub));

const fixture = (name: string) => JSON.parse(readFileSync(resolve(import.meta.dirname, 'fixtures/messages', name), 'utf8')) as Record<string, unknown>;
const ask = (tag: string): Record<string, unknown> => ({ ...(fixture('claude-pre-tool-use-ask-user-question.json').payload as Record<string, unknown>), session_id: tag });
const plan = (tag: string): Record<string, unknown> => ({ ...(fixture('claude-pre-tool-use-exit-plan-mode.json').payload as Record<string, unknown>), session_id: tag });
const questionsOf = (payload: Record<string, unknown>) => (payload.tool_input as { questions: unknown[] }).questions;

function hook(payload: unknown, waitMs = 20_000, args = ['--ask']) {
  return runCli(['hook', 'claude', ...args], { stdin: JSON.stringify(payload), env: { ...bridge.env(), SESSION_HUB_HOOK_WAIT_MS: String(waitMs) } });
}

async function pendingOf(tag: string): Promise<{ sid: string; approval: Approval }> {
  let found: { sid: string; approval: Approval } | undefined;
  await waitFor(async () => {
    const sessions = (await bridge.get<{ sessions: { sid: string; tag: string }[] }>('/api/sessions?limit=500')).sessions.filter((s) => s.tag === tag);
    if (sessions.length !== 1) return false;
    const { approvals } = await bridge.get<{ approvals: Approval[] }>(`/api/sessions/${sessions[0]!.sid}/approvals`);
    const pending = approvals.find((a) => a.status === 'pending');
    if (pending) found = { sid: sessions[0]!.sid, approval: pending };
    return pending !== undefined;
  }, 15_000, 'a pending approval');
  return found!;
}

function decide(sid: string, approvalId: string, body: unknown) {
  return fetch(`${hub.url}/api/sessions/${sid}/approvals/${approvalId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${hub.tokens.operator}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('AskUserQuestion', () => {
  it('answered on the page: the waiting hook prints allow with updatedInput { questions, answers }; the session showed the question', async () => {
    const payload = ask('ask-1');
    const running = hook(payload);
    const { sid, approval } = await pendingOf('ask-1');
    expect(approval).toMatchObject({ tool: 'AskUserQuestion', input: payload.tool_input });
    const session = await bridge.sessionByTag('ask-1');
    expect(session.attention).toMatchObject({ kind: 'question', message: 'Should I also update the snapshots?' });

    const answers = { 'Should I also update the snapshots?': 'Yes', 'Which suites should run?': 'unit, postgres' };
    const decided = await decide(sid, approval.approvalId, { decision: 'allow', answers });
    expect(decided.status).toBe(200);
    expect(((await decided.json()) as Approval).answers).toEqual(answers);
    const result = await running;
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { questions: questionsOf(payload), answers } },
    });
    const shape = fixture('claude-pre-tool-use-answer-output.json').allow as { hookSpecificOutput: Record<string, unknown> };
    expect(Object.keys(JSON.parse(result.stdout).hookSpecificOutput).sort()).toEqual(Object.keys(shape.hookSpecificOutput).sort());
    expect((await bridge.sessionByTag('ask-1')).attention).toBeNull();
  });

  it('answers matching no option, a missing or unknown question: 400 naming it, still pending; then deny prints deny with the message', async () => {
    const running = hook(ask('ask-2'));
    const { sid, approval } = await pendingOf('ask-2');
    const bad: [unknown, RegExp][] = [
      [{ decision: 'allow', answers: { 'Should I also update the snapshots?': 'Maybe', 'Which suites should run?': 'unit' } }, /"Maybe" is none of the options/],
      [{ decision: 'allow', answers: { 'Should I also update the snapshots?': 'Yes', 'Which suites should run?': 'unit, e2e' } }, /"e2e" is none of the options/],
      [{ decision: 'allow', answers: { 'Should I also update the snapshots?': 'Yes' } }, /"Which suites should run\?" is not answered/],
      [{ decision: 'allow', answers: { 'Should I also update the snapshots?': 'Yes', 'Which suites should run?': 'unit', 'Why?': 'No' } }, /"Why\?" is not a question/],
      [{ decision: 'allow' }, /answers: required/],
    ];
    for (const [body, why] of bad) {
      const refused = await decide(sid, approval.approvalId, body);
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { message: string }).message).toMatch(why);
    }
    expect((await pendingOf('ask-2')).approval.approvalId).toBe(approval.approvalId);

    expect((await decide(sid, approval.approvalId, { decision: 'deny', message: 'Ask me again after lunch' })).status).toBe(200);
    expect(JSON.parse((await running).stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'Ask me again after lunch' },
    });
  });

  it('no decision in time: prints nothing (the agent asks in its terminal)', async () => {
    const result = await hook(ask('ask-3'), 1500);
    expect(result).toMatchObject({ code: 0, stdout: '' });
  });

  it('the background observer entry (no --ask) never waits and opens no approval', async () => {
    const started = Date.now();
    const result = await hook(ask('ask-4'), 20_000, []);
    expect(result).toMatchObject({ code: 0, stdout: '' });
    expect(Date.now() - started).toBeLessThan(10_000);
    const session = await bridge.sessionByTag('ask-4');
    expect((await bridge.get<{ approvals: Approval[] }>(`/api/sessions/${session.sid}/approvals`)).approvals).toEqual([]);
  });
});

describe('ExitPlanMode', () => {
  it('the plan is readable in the approval; allow prints allow with the plan as it was', async () => {
    const payload = plan('plan-1');
    const running = hook(payload);
    const { sid, approval } = await pendingOf('plan-1');
    expect(approval).toMatchObject({ tool: 'ExitPlanMode', input: { plan: expect.stringContaining('Add a --verbose flag') } });
    expect((await decide(sid, approval.approvalId, { decision: 'allow', answers: { x: 'y' } })).status).toBe(400);
    expect((await decide(sid, approval.approvalId, { decision: 'allow' })).status).toBe(200);
    expect(JSON.parse((await running).stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: payload.tool_input },
    });
  });
});
