/**
 * Usage of a resumed `claude -p` run (issue 34, point 7): the real Claude Code CLI against the
 * scripted model server, five Bash steps then the closing text (six model calls of
 * SCRIPTED_USAGE each), run once and then resumed. The turn the hub holds for each run counts
 * every model call its transcript records: none is left behind by a Stop hook that read the
 * transcript before Claude Code wrote the last assistant lines.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useAgentHub } from './helpers/agent-hub.js';
import { SCRIPTED_USAGE, startAnthropicServer } from './helpers/anthropic-server.js';
import { claudeHeadless, claudeProject, recordedPayloads } from './helpers/claude.js';
import { eventually } from './helpers/hub-view.js';

const agent = useAgentHub();
const { env, view } = agent;

const STEPS = 5;
const commands = Array.from({ length: STEPS }, (_, i) => `touch step-${i}.txt`);

/** The input and output tokens of the transcript's assistant messages from `from` (line index) on, each message once. */
function transcriptTokens(path: string, from = 0): { lines: number; input: number; output: number } {
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
  const seen = new Map<string, { input: number; output: number }>();
  for (const line of lines.slice(from)) {
    const entry = JSON.parse(line) as { type?: string; message?: { id?: string; model?: string; usage?: { input_tokens?: number; output_tokens?: number } } };
    if (entry.type !== 'assistant' || !entry.message?.usage || entry.message.model === '<synthetic>') continue;
    seen.set(entry.message.id!, { input: entry.message.usage.input_tokens ?? 0, output: entry.message.usage.output_tokens ?? 0 });
  }
  const sum = [...seen.values()].reduce((a, b) => ({ input: a.input + b.input, output: a.output + b.output }), { input: 0, output: 0 });
  return { lines: lines.length, ...sum };
}

describe('usage of a resumed claude -p run', () => {
  it('the hub counts every model call of each run, the resumed one too', async () => {
    const model = await agent.model(startAnthropicServer({ tools: commands.map((command) => ({ name: 'Bash', input: { command, description: 'Make a file' } })), finalText: 'All done.' }));
    const project = await agent.project(claudeProject({ modelUrl: model.url, hubEnv: env(), allow: commands.map((c) => `Bash(${c})`), record: true }));

    const first = await claudeHeadless(project, 'Make five files with bash, please');
    expect(first.code, first.stderr).toBe(0);
    const sessionId = (JSON.parse(first.stdout) as { session_id: string }).session_id;
    const path = recordedPayloads(project).find((p) => typeof p.transcript_path === 'string')!.transcript_path as string;
    const firstRun = transcriptTokens(path);
    expect(firstRun.input).toBe((STEPS + 1) * SCRIPTED_USAGE.input_tokens);

    const resumed = await claudeHeadless(project, 'Again, please', ['--resume', sessionId]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const resumedPath = recordedPayloads(project).filter((p) => typeof p.transcript_path === 'string').at(-1)!.transcript_path as string;
    const secondRun = transcriptTokens(resumedPath, resumedPath === path ? firstRun.lines : 0);
    expect(secondRun.input).toBe((STEPS + 1) * SCRIPTED_USAGE.input_tokens);

    const turns = await eventually(async () => {
      const session = (await view.sessions()).find((s) => s.tag === sessionId);
      if (!session) return undefined;
      const all = await view.turns(session.sid);
      return all.length === 2 && all.every((t) => t.status === 'completed') ? all : undefined;
    }, 15_000, 'two completed turns');
    const counted = turns.map((t) => ({ input: t.usage.reduce((s, u) => s + u.inputTokens, 0), output: t.usage.reduce((s, u) => s + u.outputTokens, 0) }));
    expect(counted).toEqual([
      { input: firstRun.input, output: firstRun.output },
      { input: secondRun.input, output: secondRun.output },
    ]);
  }, 180_000);
});
