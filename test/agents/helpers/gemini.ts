/**
 * The real Gemini CLI (the pinned `@google/gemini-cli` bundle, run with node: test/setup/agent-clis.ts)
 * in a temp project with a temp HOME, pointed at a scripted Gemini API server
 * (GOOGLE_GEMINI_BASE_URL; `security.auth.selectedType: gemini-api-key` in the user settings with a
 * fake GEMINI_API_KEY: the "gateway" auth the base URL alone selects is refused in 0.61.0), the
 * folder trusted (GEMINI_CLI_TRUST_WORKSPACE), a fixed model (`-m`: no routing call), with our hooks
 * installed the way the README says (`session-hub hook install gemini --write` in the project).
 * Headless: `gemini -p <prompt> --yolo`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { agentBinaries, runToEnd, type AgentProject, type AgentRun } from './claude.js';

const RECORDER = resolve(import.meta.dirname, 'record-hook.cjs');
export const SCRIPTED_GEMINI_MODEL = 'gemini-2.5-pro';

export async function geminiProject(options: { modelUrl: string; hubEnv: Record<string, string>; record?: boolean }): Promise<AgentProject> {
  const root = mkdtempSync(join(tmpdir(), 'session-hub-gemini-'));
  const dir = join(root, 'project');
  const home = join(root, 'home');
  mkdirSync(dir, { recursive: true });
  mkdirSync(join(home, '.gemini'), { recursive: true });
  writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false } }));
  const env: Record<string, string> = {
    HOME: home,
    PATH: process.env.PATH ?? '',
    GOOGLE_GEMINI_BASE_URL: options.modelUrl,
    GEMINI_API_KEY: 'scripted-test-key',
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    ...options.hubEnv,
  };
  const installed = await runCli(['hook', 'install', 'gemini', '--write'], { cwd: dir, env: { HOME: home } });
  expect(installed.code, installed.stderr).toBe(0);
  const recordFile = join(root, 'payloads.jsonl');
  if (options.record) {
    const settingsFile = join(dir, '.gemini', 'settings.json');
    const settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as { hooks: Record<string, { hooks: unknown[] }[]> };
    for (const entries of Object.values(settings.hooks)) entries[0]!.hooks.push({ type: 'command', command: `node ${JSON.stringify(RECORDER)} ${JSON.stringify(recordFile)}` });
    writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  }
  return { agent: `gemini-cli-${agentBinaries().versions['@google/gemini-cli']}`, dir, home, env, recordFile, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** `gemini -p <prompt> --yolo -m <model>`: headless, every tool allowed, one model (no routing call). */
export function geminiHeadless(project: AgentProject, prompt: string, args: string[] = []): Promise<AgentRun> {
  return runToEnd(process.execPath, [agentBinaries().gemini, '-p', prompt, '--yolo', '-m', SCRIPTED_GEMINI_MODEL, '--output-format', 'json', ...args], { cwd: project.dir, env: project.env });
}
