/**
 * The real OpenCode CLI (pinned: test/agents/clis) run headless, `opencode run`, against a scripted
 * Chat Completions server (a `bash` tool call, then "All done."), with our plugin installed by
 * `hook install opencode --write` (.opencode/plugins/session-hub.js): the hub holds the turn
 * completed with its closing message and usage (the plugin takes both from OpenCode's message
 * events), its tool done, and the session ended when `opencode run` exits: OpenCode fires no event
 * then, so the plugin reports the process's exit (`process.exit`) for the sessions it saw.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAgentHub } from './helpers/agent-hub.js';
import { SCRIPTED_CHAT_USAGE, startChatCompletionsServer } from './helpers/chat-completions-server.js';
import { recordedPayloads } from './helpers/claude.js';
import { saveFixture } from './helpers/fixtures.js';
import { settledRun } from './helpers/hub-view.js';
import { opencodeProject, opencodeRun, SCRIPTED_OPENCODE_MODEL } from './helpers/opencode.js';

const OPENCODE_FIXTURE_SOURCE = 'opencode 1.18.33 (opencode-linux-x64, the binary opencode-ai runs) from npm: the flat payloads our plugin (hub/hook/opencode-plugin.ts) built from its real plugin hooks and events, recorded by test/agents/opencode-run.test.ts (opencode run; scripted Chat Completions server)';

const agent = useAgentHub();
const { env, view } = agent;

describe('opencode run (headless) with our plugin', () => {
  it('leaves the hub holding the turn completed with its closing message, its tool done, its usage; the session ended with the process', async () => {
    const model = await agent.model(startChatCompletionsServer({ commands: ['touch made-by-opencode.txt'], finalText: 'All done.' }));
    const project = await agent.project(opencodeProject({ modelUrl: model.url, hubEnv: env(), record: true }));
    const run = await opencodeRun(project, 'Make a file with the shell, please');
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(project.dir, 'made-by-opencode.txt'))).toBe(true);
    const sessionId = run.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { sessionID?: string }).find((e) => e.sessionID)?.sessionID;
    expect(sessionId).toBeDefined();

    const settled = await settledRun(view, sessionId);
    // `opencode run` hands the model its words quoted (a message with spaces), and so its chat.message
    expect(settled.turn).toMatchObject({ prompt: '"Make a file with the shell, please"', response: 'All done.' });
    expect(settled.turn.activities.map((a) => [a.tool, a.status])).toEqual([['bash', 'done']]);
    expect(settled.turn.activities[0]!.input).toMatchObject({ command: 'touch made-by-opencode.txt' });
    // two assistant messages (a tool step, then the closing text), each SCRIPTED_CHAT_USAGE
    expect(settled.turn.usage).toMatchObject([{ model: SCRIPTED_OPENCODE_MODEL, inputTokens: 2 * SCRIPTED_CHAT_USAGE.prompt_tokens, outputTokens: 2 * SCRIPTED_CHAT_USAGE.completion_tokens }]);
    // `opencode run` deletes no session and fires no event at its exit: the plugin's process.exit ends it
    expect(settled.snapshot.activity).toBe('ended');
    expect(settled.snapshot.lifecycle.state).toBe('ended');
    expect(settled.snapshot.attention).toBeNull();
    const recorded = recordedPayloads(project).map((p) => p.hook_event_name);
    expect(recorded.at(-1)).toBe('process.exit');
    expect(recorded.indexOf('session.idle')).toBeLessThan(recorded.indexOf('process.exit'));
    saveFixture('run', project, recordedPayloads(project), OPENCODE_FIXTURE_SOURCE);
  }, 120_000);
});
