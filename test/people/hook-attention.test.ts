/**
 * How the hub's hook applier wires attention and approvals: per payload, `attentionFromHook` then
 * `applyHookAttention` in its unit of work (and `openApprovalIn` for a PermissionRequest), then
 * `wakeApprovalWaiters` after the commit. Driven here with Claude Code's real payloads
 * (test/hook/fixtures/attention) on the hub's services and a real SQLite file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { attentionFromHook } from '../../shared/attention-hooks.js';
import { startSession } from '../../hub/lifecycle/session-start.js';
import { waitForDecision } from '../../hub/people/approval-wait.js';
import { wakeApprovalWaiters } from '../../hub/people/approval-waiters.js';
import { openApprovalIn } from '../../hub/people/approvals.js';
import { applyHookAttention, toolCallOf } from '../../hub/people/hook-attention.js';
import { mapHookPayload } from '../../hub/services/hook-payload.js';
import type { JsonObject } from '../../shared/protocol/json.js';
import { runWrite } from '../../hub/services/changes.js';
import { getSession } from '../../hub/store/sessions.js';
import { listApprovals } from '../../hub/store/approvals.js';
import { openServices, runnerActor, type ServiceHarness } from '../helpers/services.js';

const payload = (file: string) => (JSON.parse(readFileSync(join(import.meta.dirname, '..', 'hook', 'fixtures', 'attention', file), 'utf8')) as { payload: Record<string, unknown> }).payload;

let harness: ServiceHarness;
beforeEach(() => {
  harness = openServices();
});
afterEach(async () => {
  await harness.close();
});

/** What the hook applier does for one payload of a session. */
async function applyHook(sid: string, hook: Record<string, unknown>) {
  const { deps } = harness;
  const result = await runWrite(deps, async (tx, changes, now) => {
    const session = (await getSession(tx, { namespace: 'default', sid }))!;
    const mapped = mapHookPayload('claude', hook as JsonObject, 0);
    const call = mapped.kind === 'mapped' ? toolCallOf(mapped.hook) : null;
    const superseded = await applyHookAttention(tx, changes, session, attentionFromHook('claude', hook), now, call);
    const approval = hook.hook_event_name === 'PermissionRequest'
      ? await openApprovalIn(tx, changes, session, { sid, tool: hook.tool_name as string, input: hook.tool_input as never, cwd: hook.cwd as string }, now)
      : undefined;
    return { superseded, approval };
  });
  wakeApprovalWaiters(deps, result.superseded);
  return result;
}

const attentionOf = async (sid: string) => (await getSession(harness.deps.store, { namespace: 'default', sid }))!.attention;

describe('the hook applier\'s calls', () => {
  it('a Claude Code session: done, cleared, permission with an approval, answered in the terminal (superseded), failed, ended', async () => {
    const { session } = await startSession(harness.deps, runnerActor(), { tag: 'abc123', flavor: 'claude', source: 'startup' });
    const sid = session.sid;

    await applyHook(sid, payload('claude-stop.json'));
    expect(await attentionOf(sid)).toEqual({ kind: 'done', since: harness.clock.now(), message: "I've completed the refactoring. Here's a summary...", tool: null });

    harness.clock.advance(1000);
    await applyHook(sid, payload('claude-pre-tool-use.json'));
    expect(await attentionOf(sid)).toBeNull();

    const { approval } = await applyHook(sid, payload('claude-permission-request.json'));
    expect(approval).toMatchObject({ status: 'pending', tool: 'Bash', input: { command: 'rm -rf node_modules', description: 'Remove node_modules directory' }, cwd: '/Users/...' });
    expect(await attentionOf(sid)).toMatchObject({ kind: 'permission', tool: 'Bash', message: null });
    // Claude Code's permission Notification follows: it adds its text and keeps the tool it does not name
    await applyHook(sid, payload('claude-notification-permission-prompt.json'));
    expect(await attentionOf(sid)).toMatchObject({ kind: 'permission', tool: 'Bash', message: 'Claude needs your permission to use Bash' });
    // the bridge's wait; the user answers in the terminal instead, so the tool runs
    const waiting = waitForDecision(harness.deps, approval!.approvalId, 30_000);
    // the same call's PreToolUse (an async hook) arriving after it, at its time: not an answer
    expect((await applyHook(sid, payload('claude-pre-tool-use.json'))).superseded).toEqual([]);
    expect(await attentionOf(sid)).toMatchObject({ kind: 'permission', tool: 'Bash' });
    harness.clock.advance(1000);
    // another call's PostToolUse (a parallel subagent's Write) answers nothing here
    expect((await applyHook(sid, payload('claude-post-tool-use.json'))).superseded).toEqual([]);
    expect(await attentionOf(sid)).toMatchObject({ kind: 'permission', tool: 'Bash' });
    const asked = payload('claude-permission-request.json');
    const { superseded } = await applyHook(sid, { ...payload('claude-post-tool-use.json'), tool_name: asked.tool_name, tool_input: asked.tool_input });
    expect(superseded).toEqual([approval!.approvalId]);
    expect(await waiting).toBeNull();
    expect((await listApprovals(harness.deps.store, sid)).map((a) => a.status)).toEqual(['superseded']);
    expect(await attentionOf(sid)).toBeNull();

    await applyHook(sid, payload('claude-stop-failure.json'));
    expect(await attentionOf(sid)).toMatchObject({ kind: 'failed', message: 'API Error: Rate limit reached' });
    await applyHook(sid, payload('claude-notification-auth-success.json'));
    expect(await attentionOf(sid)).toMatchObject({ kind: 'failed' });
    await applyHook(sid, payload('claude-session-end.json'));
    expect(await attentionOf(sid)).toBeNull();

    // every change went out as events of its unit of work
    const bodies = harness.published.map((e) => e.event.body);
    expect(bodies.filter((b) => b.t === 'approval').map((b) => b.t === 'approval' && b.approval.status)).toEqual(['pending', 'superseded']);
    const attention = bodies.flatMap((b) => (b.t === 'update-session' && b.attention ? [b.attention.value?.kind ?? null] : []));
    expect(attention).toEqual(['done', null, 'permission', 'permission', null, 'failed', null]);
  });
});
