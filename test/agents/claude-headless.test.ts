/**
 * The real Claude Code CLI (pinned: test/agents/clis) run headless, `claude -p`, against a scripted
 * model server (a Bash tool use, then "All done."), with our hooks installed by
 * `hook install claude --write`: within seconds of the CLI's exit the hub holds the turn completed
 * with its closing message, its tool finished, its usage, and the session no longer working.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { useAgentHub } from './helpers/agent-hub.js';
import { startAnthropicServer } from './helpers/anthropic-server.js';
import { claudeHeadless, claudeProject, installedWaiter, recordedPayloads } from './helpers/claude.js';
import { saveFixture } from './helpers/fixtures.js';
import { eventually } from './helpers/hub-view.js';

const agent = useAgentHub();
const { env, view } = agent;

/** The one session of this agent session id, once the hub has it. */
async function sessionOf(agentSessionId: string): Promise<SessionSnapshot> {
  return eventually(async () => (await view.sessions()).find((s) => s.tag === agentSessionId), 10_000, `a session tagged ${agentSessionId}`);
}

describe('claude -p (headless) with our hooks', () => {
  it('leaves the hub holding the turn completed, its tool done, its usage, the session not working', async () => {
    const model = await agent.model(startAnthropicServer({ tools: [{ name: 'Bash', input: { command: 'touch made-by-claude.txt', description: 'Make a file' } }], finalText: 'All done.' }));
    const project = await agent.project(claudeProject({ modelUrl: model.url, hubEnv: env(), allow: ['Bash(touch made-by-claude.txt)'], record: true }));

    // the default install: the asyncRewake waiter beside the Stop hook (it exits at once under -p)
    expect(installedWaiter(project)).toMatchObject({ asyncRewake: true });
    const run = await claudeHeadless(project, 'Make a file with bash, please');
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { result: string; session_id: string };
    expect(result.result).toBe('All done.');
    expect(existsSync(join(project.dir, 'made-by-claude.txt'))).toBe(true);

    const session = await sessionOf(result.session_id);
    const settled = await eventually(async () => {
      const [snapshot, turns] = [await view.session(session.sid), await view.turns(session.sid)];
      const turn = turns.at(-1);
      return turn?.status === 'completed' && snapshot.activity !== 'working' && turn.usage.length > 0 ? { snapshot, turn } : undefined;
    }, 10_000, 'the turn completed with usage, the session not working');

    expect(settled.turn.prompt).toBe('Make a file with bash, please');
    expect(settled.turn.response).toBe('All done.');
    expect(settled.turn.activities.map((a) => [a.tool, a.status])).toEqual([['Bash', 'done']]);
    expect(settled.turn.activities[0]!.input).toMatchObject({ command: 'touch made-by-claude.txt' });
    const tokens = settled.turn.usage.reduce((sum, u) => sum + u.inputTokens + u.outputTokens, 0);
    expect(tokens).toBeGreaterThan(0);
    // the CLI ended: the session ended with it (SessionEnd reached the hub)
    expect(settled.snapshot.activity).toBe('ended');
    saveFixture('headless-allowed-by-settings', project, recordedPayloads(project));
  }, 120_000);

  it('a tool the project does not allow is denied by Claude Code itself (no approval is asked in -p): the turn completes, no tool done', async () => {
    const model = await agent.model(startAnthropicServer({ tools: [{ name: 'Bash', input: { command: 'touch not-allowed.txt', description: 'Make a file' } }], finalText: 'All done.' }));
    const project = await agent.project(claudeProject({ modelUrl: model.url, hubEnv: env(), record: true }));
    const run = await claudeHeadless(project, 'Make a file with bash, please');
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { session_id: string; permission_denials: { tool_name: string }[] };
    expect(result.permission_denials.map((d) => d.tool_name)).toEqual(['Bash']);
    expect(existsSync(join(project.dir, 'not-allowed.txt'))).toBe(false);

    const session = await sessionOf(result.session_id);
    const turn = await eventually(async () => {
      const [snapshot, turns] = [await view.session(session.sid), await view.turns(session.sid)];
      return snapshot.activity === 'ended' && turns.at(-1)?.status === 'completed' ? turns.at(-1) : undefined;
    }, 10_000, 'the turn completed and the session ended');
    expect(turn.response).toBe('All done.');
    expect(turn.activities.filter((a) => a.status === 'done')).toEqual([]);
    // Claude Code -p asks no PermissionRequest: nothing waits for a person on the hub
    expect(await view.approvals(session.sid)).toEqual([]);
    saveFixture('headless-denied', project, recordedPayloads(project));
  }, 120_000);

  it('a turn the model API ends with an error: Claude Code fires StopFailure (after SessionEnd), the hub shows the session ended and no open turn', async () => {
    const model = await agent.model(startAnthropicServer({ tools: [], finalText: '', apiError: { status: 400, type: 'invalid_request_error', message: 'prompt is too long: 250000 tokens > 200000 maximum' } }));
    const project = await agent.project(claudeProject({ modelUrl: model.url, hubEnv: env(), record: true }));
    const run = await claudeHeadless(project, 'Hello');
    const result = JSON.parse(run.stdout) as { session_id: string; is_error: boolean };
    expect(result.is_error).toBe(true);
    const session = await sessionOf(result.session_id);
    const settled = await eventually(async () => {
      const snapshot = await view.session(session.sid);
      return snapshot.activity === 'ended' && snapshot.currentTurn === null ? snapshot : undefined;
    }, 10_000, 'the session ended with no open turn');
    expect(settled.lifecycle.state).not.toBe('running');
    const events = recordedPayloads(project).map((p) => p.hook_event_name);
    expect(events).toContain('StopFailure');
    saveFixture('headless-api-error', project, recordedPayloads(project));
  }, 120_000);

  it('a /compact of a resumed session: PreCompact and PostCompact reach the hub, the session ends again with nothing left working', async () => {
    const model = await agent.model(startAnthropicServer({ tools: [{ name: 'Bash', input: { command: 'echo compact-me', description: 'Say something' } }], finalText: 'All done.' }));
    const project = await agent.project(claudeProject({ modelUrl: model.url, hubEnv: env(), record: true }));
    const first = JSON.parse((await claudeHeadless(project, 'Hello')).stdout) as { session_id: string };
    const compacted = await claudeHeadless(project, '/compact', ['--resume', first.session_id]);
    expect(compacted.code, compacted.stderr).toBe(0);
    // PostCompact may run as the CLI ends: its hook process finishes after the exit
    await eventually(async () => (recordedPayloads(project).some((p) => p.hook_event_name === 'PostCompact') ? true : undefined), 10_000, 'PostCompact fired');
    expect(recordedPayloads(project).map((p) => p.hook_event_name)).toEqual(expect.arrayContaining(['PreCompact', 'PostCompact']));
    const session = await sessionOf(first.session_id);
    const settled = await eventually(async () => {
      const snapshot = await view.session(session.sid);
      return snapshot.activity === 'ended' && snapshot.currentTurn === null ? snapshot : undefined;
    }, 10_000, 'the session ended again with no open turn');
    expect((await view.turns(settled.sid)).map((t) => [t.prompt, t.status, t.response])).toEqual([['Hello', 'completed', 'All done.']]);
    saveFixture('headless-compact', project, recordedPayloads(project));
  }, 120_000);
});
