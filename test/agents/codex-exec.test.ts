/**
 * The real Codex CLI (pinned: test/agents/clis) run headless, `codex exec`, against a scripted
 * Responses API server (a shell command, then "All done."), with our hooks installed by
 * `hook install codex --write` ($CODEX_HOME/hooks.json): within seconds of the CLI's exit the hub
 * holds the turn completed with its closing message, its tool done, its usage (read from the
 * rollout file), and the session ended.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAgentHub } from './helpers/agent-hub.js';
import { recordedPayloads } from './helpers/claude.js';
import { codexExec, codexProject } from './helpers/codex.js';
import { saveFixture } from './helpers/fixtures.js';
import { settledRun } from './helpers/hub-view.js';
import { SCRIPTED_CODEX_USAGE, startResponsesServer } from './helpers/responses-server.js';

const agent = useAgentHub();
const { env, view } = agent;

describe('codex exec (headless) with our hooks', () => {
  it('hook install codex writes hooks.json under CODEX_HOME with every Codex hook synchronous', async () => {
    const model = await agent.model(startResponsesServer({ commands: [], finalText: 'All done.' }));
    const codex = await agent.project(codexProject({ modelUrl: model.url, hubEnv: env() }));
    const { hooks } = JSON.parse(readFileSync(join(codex.codexHome, 'hooks.json'), 'utf8')) as { hooks: Record<string, { hooks: { async?: boolean; command: string }[] }[]> };
    expect(Object.keys(hooks).sort()).toEqual(['PermissionRequest', 'PostToolUse', 'PreToolUse', 'SessionEnd', 'SessionStart', 'Stop', 'UserPromptSubmit']);
    for (const entries of Object.values(hooks)) expect(entries[0]!.hooks[0]).toMatchObject({ command: expect.stringMatching(/hook-bridge\.cjs" codex$/) });
    for (const entries of Object.values(hooks)) expect(entries[0]!.hooks[0]!.async).toBeUndefined();
  });

  it('leaves the hub holding the turn completed, its tool done, its usage, the session ended', async () => {
    const model = await agent.model(startResponsesServer({ commands: ['touch made-by-codex.txt'], finalText: 'All done.' }));
    const project = await agent.project(codexProject({ modelUrl: model.url, hubEnv: env(), record: true }));
    const run = await codexExec(project, 'Make a file with the shell, please');
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(project.dir, 'made-by-codex.txt'))).toBe(true);
    const threadId = run.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; thread_id?: string }).find((e) => e.type === 'thread.started')?.thread_id;
    expect(threadId).toBeDefined();

    const settled = await settledRun(view, threadId);
    expect(settled.turn).toMatchObject({ prompt: 'Make a file with the shell, please', response: 'All done.' });
    expect(settled.turn.activities.map((a) => [a.tool, a.status])).toEqual([['Bash', 'done']]);
    expect(settled.turn.activities[0]!.input).toMatchObject({ command: 'touch made-by-codex.txt' });
    // two model responses, each SCRIPTED_CODEX_USAGE (OpenAI's input count includes the cached tokens)
    expect(settled.turn.usage).toMatchObject([{ model: 'gpt-5-codex', inputTokens: 2 * SCRIPTED_CODEX_USAGE.input_tokens, outputTokens: 2 * SCRIPTED_CODEX_USAGE.output_tokens }]);
    saveFixture('exec', project, recordedPayloads(project));
  }, 120_000);
});
