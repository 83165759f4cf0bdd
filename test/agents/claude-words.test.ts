/**
 * The agent's own words in the turn timeline (issue 34 point 8), with the real Claude Code CLI run
 * headless against a scripted model that says something, calls a tool, says more, calls another,
 * and closes: no hook payload carries those texts; the bridge reads them from the transcript and
 * sends them with the tool hooks and the Stop. The hub's turn (API) holds them in order around the
 * tool uses; the same event sent again adds nothing.
 */
import { describe, expect, it } from 'vitest';
import type { HookBatchResponse } from '../../shared/protocol/hooks.js';
import { useAgentHub } from './helpers/agent-hub.js';
import { startAnthropicServer } from './helpers/anthropic-server.js';
import { claudeHeadless, claudeProject, recordedPayloads } from './helpers/claude.js';
import { settledRun } from './helpers/hub-view.js';

const agent = useAgentHub();
const { env, view } = agent;

const FIRST = 'Let me look at what the folder holds first.';
const SECOND = 'Nothing there yet, so I will make the file now.';
const CLOSING = 'Done: the folder holds words.txt.';

describe('claude -p: the agent\'s words between its tool calls', () => {
  it('reach the turn in the order the agent worked (text, tool, text, tool, closing text), and a re-sent event adds none', async () => {
    const model = await agent.model(startAnthropicServer({
      tools: [
        { name: 'Bash', say: FIRST, input: { command: 'ls', description: 'List the folder' } },
        { name: 'Bash', say: SECOND, input: { command: 'touch words.txt', description: 'Make the file' } },
      ],
      finalText: CLOSING,
    }));
    const project = await agent.project(claudeProject({ modelUrl: model.url, hubEnv: env(), allow: ['Bash(ls)', 'Bash(touch words.txt)'], record: true }));
    const run = await claudeHeadless(project, 'Make words.txt, please');
    expect(run.code, run.stderr).toBe(0);
    const { session_id: tag } = JSON.parse(run.stdout) as { session_id: string };

    const { snapshot, turn } = await settledRun(view, tag);
    expect(turn.response).toBe(CLOSING);
    expect(turn.activities.map((a) => [a.tool, a.status])).toEqual([['Bash', 'done'], ['Bash', 'done']]);
    expect(turn.texts.map((t) => t.text)).toEqual([FIRST, SECOND, CLOSING]);
    // the timeline's order: each text before the tool it came with, the closing text after the last
    const [ls, touch] = turn.activities;
    const [first, second, closing] = turn.texts;
    expect(first!.at).toBeLessThanOrEqual(ls!.at);
    expect(second!.at).toBeGreaterThanOrEqual(ls!.at);
    expect(second!.at).toBeLessThanOrEqual(touch!.at);
    expect(closing!.at).toBeGreaterThanOrEqual(touch!.at);
    expect(turn.texts.every((t) => !t.truncated)).toBe(true);

    // an event retried (the bridge re-sends the same id after a lost answer): applied once
    const preToolUse = recordedPayloads(project).find((p) => p.hook_event_name === 'PreToolUse')!;
    const retried = { id: `retried-${tag}`, flavor: 'claude', firedAt: Date.now(), seq: 10_000, payload: preToolUse, texts: [{ text: 'Said once.' }] };
    const outcomes: string[] = [];
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${agent.hub().url}/api/hooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${agent.hub().tokens.runner}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events: [retried] }),
      });
      expect(response.status).toBe(200);
      outcomes.push(...((await response.json()) as HookBatchResponse).results.map((r) => r.outcome));
    }
    expect(outcomes).toEqual(['applied', 'duplicate']);
    const after = (await view.turns(snapshot.sid)).find((t) => t.turnId === turn.turnId)!;
    expect(after.texts.filter((t) => t.text === 'Said once.')).toHaveLength(1);
    expect(after.texts).toHaveLength(4);
  }, 120_000);
});
