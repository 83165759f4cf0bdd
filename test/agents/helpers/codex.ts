/**
 * The real Codex CLI (the pinned native binary: test/setup/agent-clis.ts) in a temp project with a
 * temp CODEX_HOME whose config.toml points it at a scripted Responses API server (a custom model
 * provider), with our hooks installed the way the README says (`session-hub hook install codex
 * --write`, which writes $CODEX_HOME/hooks.json). Headless: `codex exec`.
 */
import { startInPty } from './pty.js';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { agentBinaries, runToEnd, type AgentProject, type AgentRun } from './claude.js';

const RECORDER = resolve(import.meta.dirname, 'record-hook.cjs');

export async function codexProject(options: { modelUrl: string; hubEnv: Record<string, string>; record?: boolean }): Promise<AgentProject & { codexHome: string }> {
  const root = mkdtempSync(join(tmpdir(), 'session-hub-codex-'));
  const dir = join(root, 'project');
  const home = join(root, 'home');
  const codexHome = join(home, '.codex');
  mkdirSync(dir, { recursive: true });
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      'model = "gpt-5-codex"',
      'model_provider = "scripted"',
      '',
      '[model_providers.scripted]',
      'name = "scripted"',
      `base_url = ${JSON.stringify(`${options.modelUrl}/v1`)}`,
      'wire_api = "responses"',
      'env_key = "SCRIPTED_API_KEY"',
      '',
    ].join('\n'),
  );
  const env: Record<string, string> = { HOME: home, CODEX_HOME: codexHome, PATH: process.env.PATH ?? '', SCRIPTED_API_KEY: 'scripted-test-key', ...options.hubEnv };
  const installed = await runCli(['hook', 'install', 'codex', '--write'], { cwd: dir, env: { HOME: home, CODEX_HOME: codexHome } });
  expect(installed.code, installed.stderr).toBe(0);
  const hooksFile = join(codexHome, 'hooks.json');
  const recordFile = join(root, 'payloads.jsonl');
  if (options.record) {
    const config = JSON.parse(readFileSync(hooksFile, 'utf8')) as { hooks: Record<string, { hooks: unknown[] }[]> };
    for (const entries of Object.values(config.hooks)) entries[0]!.hooks.push({ type: 'command', command: `node ${JSON.stringify(RECORDER)} ${JSON.stringify(recordFile)}` });
    writeFileSync(hooksFile, JSON.stringify(config, null, 2));
  }
  return { agent: `codex-${agentBinaries().versions['@openai/codex']}`, dir, home, codexHome, env, recordFile, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * `codex exec <prompt>`: hooks the user installed are not managed, so Codex runs them only once
 * trusted; automation that vetted them (as `hook install` did) passes --dangerously-bypass-hook-trust.
 */
export function codexExec(project: AgentProject, prompt: string, args: string[] = []): Promise<AgentRun> {
  return runToEnd(agentBinaries().codex, ['exec', '--skip-git-repo-check', '--dangerously-bypass-hook-trust', '-s', 'workspace-write', '--json', ...args, prompt], { cwd: project.dir, env: project.env });
}

/**
 * Codex's TUI in a pseudo-terminal (`script -qfec`), started with the prompt and `args` (e.g. an
 * approval policy that asks, which `codex exec` does not take), the project trusted and the hooks
 * `hook install` wrote run without review; waits until `ready()` says so, then types `/quit`
 * (killed if it has not ended 10 s later).
 */
export async function codexInteractive(project: AgentProject, prompt: string, args: string[], ready: () => Promise<boolean>, timeoutMs = 60_000): Promise<AgentRun & { screen: string }> {
  const started = performance.now();
  const argv = [agentBinaries().codex, '--dangerously-bypass-hook-trust', '-c', `projects.${JSON.stringify(project.dir)}.trust_level="trusted"`, ...args, prompt];
  const { child, screen, stderr, ended, type } = startInPty(argv, { cwd: project.dir, env: { ...project.env, COLUMNS: '120', LINES: '40', TERM: 'xterm-256color' } });
  try {
    const deadline = Date.now() + timeoutMs;
    while (!(await ready())) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`interactive Codex: not ready (exit ${child.exitCode}); screen:\n${screen().slice(-3000)}\n${stderr().slice(-1000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    await type('/quit');
    const code = await Promise.race([ended, new Promise<'open'>((r) => setTimeout(() => r('open'), 10_000))]);
    return { code: code === 'open' ? null : code, stdout: screen(), stderr: stderr(), screen: screen(), wallMs: performance.now() - started };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}
