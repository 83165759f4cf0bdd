/**
 * The real Gemini CLI (pinned: test/agents/clis) run headless, `gemini -p --yolo`, against a
 * scripted Gemini API server (a shell command through `run_shell_command`, then "All done."), with
 * our hooks installed by `hook install gemini --write` (.gemini/settings.json): within seconds of
 * the CLI's exit the hub holds the turn completed with its closing message, its tool done, its
 * usage (read from the session file), and the session ended.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAgentHub } from './helpers/agent-hub.js';
import { recordedPayloads } from './helpers/claude.js';
import { saveFixture } from './helpers/fixtures.js';
import { geminiHeadless, geminiProject, SCRIPTED_GEMINI_MODEL } from './helpers/gemini.js';
import { SCRIPTED_GEMINI_USAGE, startGeminiServer } from './helpers/gemini-server.js';
import { settledRun } from './helpers/hub-view.js';

const agent = useAgentHub();
const { env, view } = agent;

describe('gemini -p (headless) with our hooks', () => {
  it('leaves the hub holding the turn completed, its tool done, its usage, the session ended', async () => {
    const model = await agent.model(startGeminiServer({ commands: ['touch made-by-gemini.txt'], finalText: 'All done.' }));
    const project = await agent.project(geminiProject({ modelUrl: model.url, hubEnv: env(), record: true }));
    const run = await geminiHeadless(project, 'Make a file with the shell, please');
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(project.dir, 'made-by-gemini.txt'))).toBe(true);
    // Gemini CLI prints each hook that failed or timed out (our hooks were once written in seconds, read as ms)
    expect(run.stderr).not.toMatch(/Hook execution error|failed for event/);
    const payloads = recordedPayloads(project);
    saveFixture('headless', project, payloads);
    const sessionId = (JSON.parse(run.stdout) as { session_id?: string }).session_id ?? payloads[0]?.session_id;
    expect(sessionId).toBeDefined();

    const settled = await settledRun(view, sessionId);
    expect(settled.turn).toMatchObject({ prompt: 'Make a file with the shell, please', response: 'All done.' });
    expect(settled.turn.activities.map((a) => [a.tool, a.status])).toEqual([['run_shell_command', 'done']]);
    expect(settled.turn.activities[0]!.input).toMatchObject({ command: 'touch made-by-gemini.txt' });
    // two model responses, each SCRIPTED_GEMINI_USAGE
    expect(settled.turn.usage).toMatchObject([{ model: SCRIPTED_GEMINI_MODEL, inputTokens: 2 * SCRIPTED_GEMINI_USAGE.promptTokenCount, outputTokens: 2 * SCRIPTED_GEMINI_USAGE.candidatesTokenCount }]);
  }, 120_000);
});
