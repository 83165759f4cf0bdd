/**
 * Claude Code subagents through real hook processes (fixtures/claude-subagent.json names its
 * source): the subagent's work shows under its parent's turn — one `Subagent` activity from
 * SubagentStart to SubagentStop (paired by agent_id, its answer as output), the subagent's own tools
 * (their payloads carry agent_id) in the same turn — and never as a session of its own.
 */
import { describe, expect, it } from 'vitest';
import type { ListSessionsResponse } from '../../shared/protocol/http.js';
import type { TurnWithActivity } from '../../shared/protocol/session.js';
import { fixture, sendHooks, useBridgeHub } from './run-cli.js';

const { env, get, sessionByTag } = useBridgeHub();
const payloads = fixture('claude-subagent.json');
const tag = payloads[0]!.session_id as string;

describe('Claude Code subagents', () => {
  it('show under the parent turn, not as a new session', async () => {
    for (const result of await sendHooks('claude', payloads, env())) expect(result).toMatchObject({ code: 0, stderr: '' });
    const { sessions } = await get<ListSessionsResponse>('/api/sessions');
    expect(sessions.map((s) => s.tag)).toEqual([tag]);
    const session = await sessionByTag(tag);
    expect(session.lifecycle).toMatchObject({ state: 'ended', lastRun: { status: 'success' } });
    const turns = await get<TurnWithActivity[]>(`/api/sessions/${session.sid}/turns`);
    expect(turns.map((t) => [t.prompt, t.status, t.response])).toEqual([['Find where the config is loaded', 'completed', 'It is loaded in src/config.ts.']]);
    expect(turns[0]!.activities.map((a) => [a.tool, a.toolUseId, a.status])).toEqual([
      ['Task', 'toolu_01TASK', 'done'],
      ['Subagent', 'a8a5aea3b68767861', 'done'],
      ['Grep', 'toolu_01GREP', 'done'],
    ]);
    const subagent = turns[0]!.activities[1]!;
    expect(subagent.input).toBe('Explore');
    expect(subagent.output).toBe('The config is read in src/config.ts (loadConfig), called from src/cli.ts.');
  });
});
