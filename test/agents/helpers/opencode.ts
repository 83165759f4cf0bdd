/**
 * The real OpenCode CLI (the native binary of `opencode-ai`'s platform package, pinned:
 * test/setup/agent-clis.ts) in a temp project with a temp HOME, its
 * opencode.json naming a custom provider (`@ai-sdk/openai-compatible`, `options.baseURL`) at a
 * scripted Chat Completions server, the models.dev fetch off; our plugin installed the way the
 * README says (`session-hub hook install opencode --write`: .opencode/plugins/session-hub.js).
 * Headless: `opencode run <prompt>`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { agentBinaries, runToEnd, type AgentProject, type AgentRun } from './claude.js';

const RECORDER = resolve(import.meta.dirname, 'record-hook.cjs');
export const SCRIPTED_OPENCODE_MODEL = 'scripted-model';

export async function opencodeProject(options: { modelUrl: string; hubEnv: Record<string, string>; record?: boolean }): Promise<AgentProject> {
  const root = mkdtempSync(join(tmpdir(), 'session-hub-opencode-'));
  const dir = join(root, 'project');
  const home = join(root, 'home');
  mkdirSync(dir, { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(
    join(dir, 'opencode.json'),
    JSON.stringify({
      $schema: 'https://opencode.ai/config.json',
      provider: {
        scripted: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Scripted',
          options: { baseURL: `${options.modelUrl}/v1`, apiKey: 'scripted-test-key' },
          models: { [SCRIPTED_OPENCODE_MODEL]: { name: 'Scripted model', tool_call: true } },
        },
      },
      model: `scripted/${SCRIPTED_OPENCODE_MODEL}`,
      autoupdate: false,
      share: 'disabled',
    }, null, 2),
  );
  const env: Record<string, string> = {
    HOME: home,
    PATH: process.env.PATH ?? '',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    ...options.hubEnv,
  };
  const installed = await runCli(['hook', 'install', 'opencode', '--write'], { cwd: dir, env: { HOME: home } });
  expect(installed.code, installed.stderr).toBe(0);
  const recordFile = join(root, 'payloads.jsonl');
  if (options.record) {
    // the same plugin, its command the recorder: the flat payloads our plugin hands the bridge
    const plugin = readFileSync(join(dir, '.opencode', 'plugins', 'session-hub.js'), 'utf8');
    const recorder = plugin.replace(/^const COMMAND = .*$/m, `const COMMAND = ${JSON.stringify(['node', RECORDER, recordFile])};`).replace('export const SessionHub', 'export const SessionHubRecorder');
    expect(recorder).not.toBe(plugin);
    writeFileSync(join(dir, '.opencode', 'plugins', 'session-hub-recorder.js'), recorder);
  }
  return { agent: `opencode-${agentBinaries().versions['opencode-linux-x64']}`, dir, home, env, recordFile, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** `opencode run <prompt>`: headless, the run's events as JSON lines. */
export function opencodeRun(project: AgentProject, prompt: string, args: string[] = []): Promise<AgentRun> {
  return runToEnd(agentBinaries().opencode, ['run', '--format', 'json', ...args, prompt], { cwd: project.dir, env: project.env });
}
