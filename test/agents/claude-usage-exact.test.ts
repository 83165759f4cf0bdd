/**
 * Every token Claude Code's transcript records reaches the hub (issue 34, point 7): a `claude -p` run
 * with three tool calls and then a resumed run with three more, each model call 120 in / 30 out
 * (the scripted server's SCRIPTED_USAGE). Claude Code 2.1.197 writes its transcript through a queue
 * flushed every 100 ms, and fires `Stop` without waiting for it: a bridge that read the transcript at
 * once at `Stop` intermittently missed the turn's last message. The hub's turns must hold what the
 * transcript holds, message for message, on every run.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { useAgentHub } from './helpers/agent-hub.js';
import { SCRIPTED_USAGE, startAnthropicServer } from './helpers/anthropic-server.js';
import { claudeHeadless, claudeProject } from './helpers/claude.js';
import { eventually } from './helpers/hub-view.js';

const agent = useAgentHub();
const { env, view } = agent;

/** The distinct assistant messages the transcript holds (Claude Code writes a line per content block). */
function messagesIn(transcript: string): number {
  const ids = new Set<string>();
  for (const line of readFileSync(transcript, 'utf8').split('\n')) {
    if (!line.includes('"assistant"')) continue;
    const entry = JSON.parse(line) as { type?: string; message?: { id?: string; usage?: unknown } };
    if (entry.type === 'assistant' && entry.message?.id && entry.message.usage) ids.add(entry.message.id);
  }
  return ids.size;
}

describe('claude -p usage, resumed', () => {
  it('the hub counts every model call of the first run and of the resumed run', async () => {
    const tools = ['one', 'two', 'three'].map((n) => ({ name: 'Bash', input: { command: `echo ${n}`, description: `Say ${n}` } }));
    const model = await agent.model(startAnthropicServer({ tools, finalText: 'All done.' }));
    const project = await agent.project(claudeProject({ modelUrl: model.url, hubEnv: env(), allow: ['Bash(echo:*)'] }));

    const first = await claudeHeadless(project, 'Say three things');
    expect(first.code, first.stderr).toBe(0);
    const { session_id: agentSession } = JSON.parse(first.stdout) as { session_id: string };
    const resumed = await claudeHeadless(project, 'Say them again', ['--resume', agentSession]);
    expect(resumed.code, resumed.stderr).toBe(0);

    const session = await eventually(async () => (await view.sessions()).find((s) => s.tag === agentSession), 10_000, 'the session on the hub');
    const transcript = (await view.session(session.sid)) as SessionSnapshot;
    const turns = await eventually(async () => {
      const found = await view.turns(session.sid);
      return found.length === 2 && found.every((t) => t.status === 'completed') && (await view.session(session.sid)).activity === 'ended' ? found : undefined;
    }, 15_000, 'both turns completed and the session ended');
    const path = String((transcript.metadata as Record<string, unknown>).transcriptPath ?? '');
    const perTurn = turns.map((t) => t.usage.reduce((sum, u) => ({ in: sum.in + u.inputTokens, out: sum.out + u.outputTokens }), { in: 0, out: 0 }));
    // four model calls a turn (three tools, then the closing text)
    expect(perTurn).toEqual([
      { in: 4 * SCRIPTED_USAGE.input_tokens, out: 4 * SCRIPTED_USAGE.output_tokens },
      { in: 4 * SCRIPTED_USAGE.input_tokens, out: 4 * SCRIPTED_USAGE.output_tokens },
    ]);
    if (path) expect(messagesIn(path)).toBe(8);
  }, 180_000);
});
