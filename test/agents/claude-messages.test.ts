/**
 * The real Claude Code CLI (pinned: test/agents/clis) run headless against a scripted model server,
 * with our hooks installed by `hook install claude --write`: a person's message queued on the hub
 * for the session reaches the agent at its Stop (`decision: block`), and the model server receives
 * the person's text as the agent's next input; the message ends delivered, by the Stop hook or the
 * asyncRewake waiter that runs beside it (whichever takes it first).
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../shared/protocol/messages.js';
import { connectRunner } from '../helpers/clients.js';
import type { TestHub } from '../helpers/hub.js';
import { useBridgeHub } from '../hook/run-cli.js';
import { startAnthropicServer } from './helpers/anthropic-server.js';
import { claudeHeadless, claudeProject, type AgentProject } from './helpers/claude.js';

type ModelServer = Awaited<ReturnType<typeof startAnthropicServer>>;

let hub: TestHub;
const { env } = useBridgeHub((started) => ({ hub } = started));

let model: ModelServer | undefined;
let project: AgentProject | undefined;
afterEach(async () => {
  await model?.close();
  project?.remove();
  model = project = undefined;
});

describe('claude -p with a message from a person queued', () => {
  it('the scripted model server receives the person\'s text as the agent\'s next input', async () => {
    model = await startAnthropicServer({ tools: [], finalText: 'All done.' });
    // a short wake wait: `claude -p` does not exit while its asyncRewake Stop hook waits (with the
    // default 10 minutes this run took 90 s and more; docs/messages.md, "Headless runs")
    project = await claudeProject({ modelUrl: model.url, hubEnv: { ...env(), SESSION_HUB_WAKE_WAIT_MS: '3000' } });
    const agentSessionId = randomUUID();
    // the session exists before the run (as one the agent ran before): a runner starts it under the agent's session id
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    runner.on('message', (_payload, ack) => ack({ ok: false }));
    const started = await runner.emitWithAck('session-start', { tag: agentSessionId, flavor: 'claude', source: 'startup' });
    if (!started.ok) throw new Error(started.error.message);
    const sid = started.session.sid;
    const posted = await fetch(`${hub.url}/api/sessions/${sid}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.tokens.operator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Also add a changelog entry, please.' }),
    });
    expect(posted.status).toBe(201);

    const run = await claudeHeadless(project, 'Say you are done', ['--session-id', agentSessionId]);
    expect(run.code, run.stderr).toBe(0);
    // the first request is the prompt; a later one carries the person's words as the agent's next input
    expect(model.requests.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(model.requests[0]!.messages)).not.toContain('changelog');
    expect(JSON.stringify(model.requests.at(-1)!.messages)).toContain('Also add a changelog entry, please.');
    const listed = (await (await fetch(`${hub.url}/api/sessions/${sid}/messages`, { headers: { authorization: `Bearer ${hub.tokens.dashboard}` } })).json()) as { messages: Message[] };
    expect(listed.messages[0]).toMatchObject({ state: 'delivered' });
    expect(['hook:Stop', 'wake:Stop']).toContain(listed.messages[0]!.via);
  }, 120_000);
});
