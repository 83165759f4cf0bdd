/**
 * Issue 26.11: a tool event supersedes only the approval of its own call. With parallel subagents,
 * subagent B's PreToolUse/PostToolUse (Grep) arrive while A's PermissionRequest (Bash) waits: A's
 * approval stays pending, the operator's Allow reaches A's hook process. The same call's
 * PostToolUse (answered in the terminal) still supersedes it. Real hook processes, real payloads.
 */
import { describe, expect, it } from 'vitest';
import { permissionRequestStdout } from '../../shared/permission-output.js';
import { runCli } from '../helpers/cli.js';
import type { TestHub } from '../helpers/hub.js';
import { useBridgeHub } from '../hook/run-cli.js';
import { attentionPayload, fixturePayloads, hubApi, startHook } from './hook-processes.js';

let hub: TestHub;
const { env } = useBridgeHub((started) => ({ hub } = started));
const api = hubApi(() => ({ url: hub.url, token: hub.tokens.operator }));

async function hook(body: Record<string, unknown>): Promise<void> {
  const run = await runCli(['hook', 'claude'], { stdin: JSON.stringify(body), env: env() });
  expect(run, run.stderr).toMatchObject({ code: 0, stdout: '' });
}

/** Subagent B's Grep call (claude-subagent.json: PreToolUse and PostToolUse carrying agent_id). */
function subagentGrep(sessionId: string): Record<string, unknown>[] {
  return fixturePayloads('claude-subagent.json', sessionId).filter((p) => p.tool_name === 'Grep');
}

describe('a tool event supersedes only its own call\'s approval', () => {
  it('another subagent\'s PreToolUse and PostToolUse leave A\'s approval pending; Allow reaches A\'s hook process', async () => {
    const waiting = startHook(attentionPayload('claude-permission-request', 'same-call-a'), env());
    const { sid, approvals } = await api.approvalsWhen('same-call-a', (list) => list.some((a) => a.status === 'pending'), 'a pending approval');
    const approvalId = approvals[0]!.approvalId;
    const grep = subagentGrep('same-call-a');
    expect(grep.map((p) => p.hook_event_name)).toEqual(['PreToolUse', 'PostToolUse']);
    for (const body of grep) await hook(body);

    expect((await api.approvalsOf(sid)).map((a) => a.status)).toEqual(['pending']);
    expect((await api.sessionOf('same-call-a'))?.attention).toMatchObject({ kind: 'permission', tool: 'Bash' });
    const response = await api.decide(sid, approvalId, { decision: 'allow' });
    expect(response.status).toBe(200);
    const run = await waiting.done;
    expect(run).toMatchObject({ code: 0, stdout: permissionRequestStdout({ decision: 'allow' }) });
  });

  it('the same call\'s PostToolUse (answered in the terminal) supersedes it: the hook process ends printing nothing', async () => {
    const asked = attentionPayload('claude-permission-request', 'same-call-b');
    const waiting = startHook(asked, env());
    const { sid } = await api.approvalsWhen('same-call-b', (list) => list.some((a) => a.status === 'pending'), 'a pending approval');
    // Claude Code's PostToolUse example, for the call the PermissionRequest asked about
    await hook({ ...attentionPayload('claude-post-tool-use', 'same-call-b'), tool_name: asked.tool_name, tool_input: asked.tool_input, tool_response: { stdout: '', stderr: '', interrupted: false } });
    expect(await waiting.done).toMatchObject({ code: 0, stdout: '' });
    expect((await api.approvalsOf(sid)).map((a) => a.status)).toEqual(['superseded']);
    expect((await api.sessionOf('same-call-b'))?.attention).toBeNull();
  });

  it('a prompt (not a tool event) supersedes what was pending: the agent is back at its prompt', async () => {
    const waiting = startHook(attentionPayload('claude-permission-request', 'same-call-c'), env());
    const { sid } = await api.approvalsWhen('same-call-c', (list) => list.some((a) => a.status === 'pending'), 'a pending approval');
    const prompt = fixturePayloads('claude-subagent.json', 'same-call-c').find((p) => p.hook_event_name === 'UserPromptSubmit')!;
    await hook(prompt);
    expect(await waiting.done).toMatchObject({ code: 0, stdout: '' });
    expect((await api.approvalsOf(sid)).map((a) => a.status)).toEqual(['superseded']);
  });
});
