/**
 * Claude Code's PostToolBatch (after each batch of tools): a tool `claude -p` denied fires no
 * PostToolUse, only its place in the batch with the denial text as its `tool_response`. Replayed
 * from the real payloads (fixture recorded from Claude Code 2.1.197, test/agents): the tool ends
 * `denied` with that text, not `abandoned` at the turn's end; a tool that ended on its own keeps
 * its end.
 */
import { describe, expect, it } from 'vitest';
import type { TurnWithActivity } from '../../shared/protocol/session.js';
import { fixture, sendHooks, useBridgeHub } from './run-cli.js';

const { env, get, sessionByTag } = useBridgeHub();

describe('PostToolBatch closes the tools of its batch that had no end of their own', () => {
  it('a tool claude -p denied ends denied, with the denial text', async () => {
    const payloads = fixture('agents/claude-code-2.1.197-headless-denied-post-tool-batch.json');
    for (const result of await sendHooks('claude', payloads, env())) expect(result).toMatchObject({ code: 0 });
    const session = await sessionByTag(payloads[0]!.session_id as string);
    const [turn] = await get<TurnWithActivity[]>(`/api/sessions/${session.sid}/turns`);
    expect(turn).toMatchObject({ status: 'completed', response: 'All done.' });
    expect(turn!.activities.map((a) => [a.tool, a.status])).toEqual([['Bash', 'denied']]);
    expect(String(turn!.activities[0]!.output)).toMatch(/not-allowed\.txt' was blocked/);
  });

  it('a tool that ended on its own (PostToolUse) keeps its end and its output', async () => {
    const payloads = fixture('agents/claude-code-2.1.197-headless-denied-post-tool-batch.json');
    const pre = payloads.find((p) => p.hook_event_name === 'PreToolUse')!;
    const post = { ...pre, hook_event_name: 'PostToolUse', tool_response: { stdout: '', stderr: '', interrupted: false } };
    const batch = payloads.find((p) => p.hook_event_name === 'PostToolBatch')!;
    const ran = [...payloads.slice(0, payloads.indexOf(pre) + 1), post, batch, ...payloads.slice(payloads.indexOf(batch) + 1)].map((p) => ({ ...p, session_id: 'batch-after-post-tool-use' }));
    for (const result of await sendHooks('claude', ran, env())) expect(result).toMatchObject({ code: 0 });
    const session = await sessionByTag('batch-after-post-tool-use');
    const [turn] = await get<TurnWithActivity[]>(`/api/sessions/${session.sid}/turns`);
    expect(turn!.activities.map((a) => [a.tool, a.status, a.output])).toEqual([['Bash', 'done', { stdout: '', stderr: '', interrupted: false }]]);
  });

  it('a batch that is not a list of tool calls changes no tool', async () => {
    const payloads = fixture('agents/claude-code-2.1.197-headless-denied-post-tool-batch.json').map((p) => ({ ...p, session_id: 'batch-malformed', ...(p.hook_event_name === 'PostToolBatch' ? { tool_calls: { not: 'a list' } } : {}) }));
    for (const result of await sendHooks('claude', payloads, env())) expect(result).toMatchObject({ code: 0 });
    const session = await sessionByTag('batch-malformed');
    const [turn] = await get<TurnWithActivity[]>(`/api/sessions/${session.sid}/turns`);
    // no end came for the tool: closed with its turn, as before
    expect(turn!.activities.map((a) => [a.tool, a.status])).toEqual([['Bash', 'abandoned']]);
  });
});
