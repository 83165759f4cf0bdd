/**
 * Issue 34 point 4, with the real Claude Code CLI against a scripted model server: a person's
 * message that reaches the agent (at its Stop under `claude -p`, by waking the idle agent in a
 * terminal) shows on the hub as one turn whose prompt is the person's words — not Claude Code's
 * wrapping of a hook's output (`<task-notification>` … `Stop hook blocking error …`), and no second
 * turn "replaced by the next prompt".
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { connectRunner } from '../helpers/clients.js';
import { useAgentHub } from './helpers/agent-hub.js';
import { startAnthropicServer } from './helpers/anthropic-server.js';
import { claudeHeadless, claudeInteractive, claudeProject, recordedPayloads } from './helpers/claude.js';
import { eventually } from './helpers/hub-view.js';

const agent = useAgentHub();
const { env, view, hub } = agent;

/** The prompts the recorder saw at UserPromptSubmit, in order. */
const submittedPrompts = (payloads: Record<string, unknown>[]) => payloads.filter((p) => p.hook_event_name === 'UserPromptSubmit').map((p) => String(p.prompt));

describe('a message that reaches Claude Code shows as the person\'s words, one turn', () => {
  it('claude -p: delivered at its Stop (decision block)', async () => {
    const model = await agent.model(startAnthropicServer({ tools: [], finalText: 'All done.' }));
    const project = await agent.project(claudeProject({ modelUrl: model.url, hubEnv: env(), record: true }));
    const agentSessionId = randomUUID();
    const runner = await connectRunner(hub().url, hub().tokens.runner);
    runner.on('message', (_payload, ack) => ack({ ok: false }));
    const started = await runner.emitWithAck('session-start', { tag: agentSessionId, flavor: 'claude', source: 'startup' });
    runner.disconnect();
    if (!started.ok) throw new Error(started.error.message);
    const text = 'Also add a changelog entry, please.';
    expect(await view.post(started.session.sid, text)).toBe(201);

    const run = await claudeHeadless(project, 'Say you are done', ['--session-id', agentSessionId]);
    expect(run.code, run.stderr).toBe(0);
    const turns = await eventually(async () => {
      const all = await view.turns(started.session.sid);
      return all.length >= 2 && all.every((turn) => turn.status !== 'open') ? all : undefined;
    }, 10_000, 'both turns closed');
    expect(turns.map((turn) => [turn.prompt, turn.status])).toEqual([['Say you are done', 'completed'], [text, 'completed']]);
    // headless, Claude Code goes on after the block without a prompt hook: the delivery opened the turn
    expect(submittedPrompts(recordedPayloads(project))).toEqual(['Say you are done']);
  }, 120_000);

  it('interactive claude: woken by the waiter (asyncRewake)', async () => {
    const model = await agent.model(startAnthropicServer({ tools: [], finalText: 'All done.' }));
    const project = await agent.project(claudeProject({ modelUrl: model.url, hubEnv: env(), record: true }));
    const text = 'Please also update the changelog.';
    let sid: string | undefined;
    let posted = false;
    const ready = async () => {
      sid ??= (await view.sessions()).find((s) => s.flavor === 'claude')?.sid;
      if (sid === undefined) return false;
      if (!posted) {
        if ((await view.turns(sid)).at(-1)?.status !== 'completed') return false;
        expect(await view.post(sid, text)).toBe(201);
        posted = true;
      }
      const turns = await view.turns(sid);
      return turns.length >= 2 && turns.at(-1)?.status === 'completed' && submittedPrompts(recordedPayloads(project)).length >= 2;
    };
    const run = await claudeInteractive(project, 'Say you are done', ready);
    expect(run.code, run.screen.slice(-2000)).toBe(0);
    const prompts = submittedPrompts(recordedPayloads(project));
    // Claude Code's own words for the wake: the person's text inside its wrapping
    expect(prompts[1]).toContain('<task-notification>');
    expect(prompts[1]).toContain(text);
    const turns = await view.turns(sid!);
    expect(turns.map((turn) => [turn.prompt, turn.status])).toEqual([['Say you are done', 'completed'], [text, 'completed']]);
  }, 150_000);
});
