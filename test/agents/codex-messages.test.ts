/**
 * The real Codex CLI (pinned: test/agents/clis) run headless, `codex exec`, against a scripted
 * Responses API server, with our hooks installed by `hook install codex --write`: a person's
 * message queued over HTTP while the turn runs reaches the agent at its `Stop` hook
 * (`{"decision":"block","reason":…}`, codex-rs/hooks), the model server receives the person's text
 * as the agent's next input, and the hub shows the message delivered by the Stop hook and the
 * follow-up turn it opened.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../shared/protocol/messages.js';
import { useAgentHub } from './helpers/agent-hub.js';
import { recordedPayloads } from './helpers/claude.js';
import { codexExec, codexProject } from './helpers/codex.js';
import { saveFixture } from './helpers/fixtures.js';
import { eventually } from './helpers/hub-view.js';
import { startResponsesServer } from './helpers/responses-server.js';

const agent = useAgentHub();
const { env, view } = agent;

const PERSON = 'Also add a changelog entry, please.';

describe('codex exec with a message from a person queued during the turn', () => {
  it('the scripted model server receives the person\'s text as the agent\'s next input at Stop', async () => {
    // the turn's one tool waits (bounded) for the test's go, so the message is queued before the turn ends
    const wait = 'for i in $(seq 1 200); do [ -f go ] && break; sleep 0.1; done';
    const model = await agent.model(startResponsesServer({ commands: [wait], finalText: 'All done.' }));
    const project = await agent.project(codexProject({ modelUrl: model.url, hubEnv: env(), record: true }));
    const running = codexExec(project, 'Wait for the go file, please');

    const session = await eventually(async () => (await view.sessions()).find((s) => s.flavor === 'codex'), 20_000, 'the Codex session on the hub');
    const posted = await fetch(`${agent.hub().url}/api/sessions/${session.sid}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agent.hub().tokens.operator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: PERSON }),
    });
    expect(posted.status).toBe(201);
    writeFileSync(join(project.dir, 'go'), '');

    const run = await running;
    expect(run.code, run.stderr).toBe(0);
    // Codex 0.169.0 appends the block's reason as a user message, wrapped in a <hook_prompt> tag naming the hook run
    type Item = { type?: string; role?: string; content?: { type: string; text: string }[] };
    const userTexts = (input: unknown) => (input as Item[]).filter((i) => i.type === 'message' && i.role === 'user').flatMap((i) => (i.content ?? []).map((c) => c.text));
    const next = model.requests.findIndex((r) => userTexts(r.input).some((t) => t.includes(PERSON)));
    expect(next, 'a request after the stop carries the person\'s words').toBeGreaterThan(0);
    expect(userTexts(model.requests[0]!.input).join('\n')).not.toContain(PERSON);
    expect(userTexts(model.requests[next]!.input).at(-1)).toMatch(new RegExp(`^<hook_prompt hook_run_id="stop:[^"]*hooks\\.json">${PERSON}</hook_prompt>$`));
    saveFixture('stop-message', project, recordedPayloads(project));

    const listed = (await (await fetch(`${agent.hub().url}/api/sessions/${session.sid}/messages`, { headers: { authorization: `Bearer ${agent.hub().tokens.dashboard}` } })).json()) as { messages: Message[] };
    expect(listed.messages).toHaveLength(1);
    expect(listed.messages[0]).toMatchObject({ state: 'delivered', via: 'hook:Stop', text: PERSON });
    const turns = await eventually(async () => {
      const all = await view.turns(session.sid);
      return all.length >= 2 && all.every((t) => t.status === 'completed') ? all : undefined;
    }, 10_000, 'the first turn and the follow-up turn completed');
    expect(turns[0]!.prompt).toBe('Wait for the go file, please');
    expect(turns.at(-1)).toMatchObject({ prompt: PERSON, response: 'All done.' });
  }, 120_000);
});
