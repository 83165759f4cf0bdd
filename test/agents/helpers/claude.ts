/**
 * The real Claude Code CLI (the pinned native binary: test/setup/agent-clis.ts) in a temp project
 * with a temp HOME, pointed at a scripted model server, with our hooks installed the way the README
 * says (`session-hub hook install claude --write` run in the project). Headless (`claude -p`) or
 * interactive in a pseudo-terminal (`script(1)` from util-linux).
 */
import { startInPty } from './pty.js';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, inject } from 'vitest';
import { getFlavor } from '../../../shared/flavors.js';
import { runCli } from '../../helpers/cli.js';

export const FAKE_ANTHROPIC_KEY = 'sk-ant-scripted-test-key-0000000000000000';

/** Claude Code's user state in `home`: onboarding done, the test API key approved, these projects trusted (what a person clicks through once). */
export function writeClaudeState(home: string, projects: readonly string[]): void {
  writeFileSync(
    join(home, '.claude.json'),
    JSON.stringify({
      hasCompletedOnboarding: true,
      theme: 'dark',
      customApiKeyResponses: { approved: [FAKE_ANTHROPIC_KEY.slice(-20)], rejected: [] },
      projects: Object.fromEntries(projects.map((dir) => [dir, { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true }])),
    }),
  );
}

/** The pinned binaries, or the test fails with why they are missing. */
export function agentBinaries(): { claude: string; codex: string; gemini: string; opencode: string; versions: Record<string, string> } {
  const clis = inject('agentClis');
  if ('error' in clis) throw new Error(clis.error);
  return clis;
}

export interface AgentProject {
  /** The agent and its version, as fixtures name their source ("claude-code-2.1.197"). */
  agent: string;
  dir: string;
  home: string;
  /** The agent's environment: the model server, no telemetry, the hub's URL, runner token and spool. */
  env: Record<string, string>;
  /** Where the recorder hook (when on) appended each payload Claude Code sent, one JSON a line. */
  recordFile: string;
  remove(): void;
}

export interface ClaudeProject extends AgentProject {
  /** The hooks `hook install claude --write` wrote (before the test's recorders were added). */
  installed: Record<string, { matcher?: string; hooks: Record<string, unknown>[] }[]>;
  /** Where the environment recorder (when on) appended the named variable's value at each Stop, one a line. */
  envFile: string;
}

/** The recorder hook: appends the payload to a file; added next to ours when `record` is asked. */
const RECORDER = resolve(import.meta.dirname, 'record-hook.cjs');
/** The environment recorder: appends one variable's value as the hook sees it; on Stop when `recordEnv` names it. */
const ENV_RECORDER = resolve(import.meta.dirname, 'record-env-hook.cjs');

/**
 * A temp project for Claude Code: HOME with onboarding done and the project trusted (what a person
 * clicks through once), hooks installed by `hook install claude --write` in the project,
 * `permissions.allow` from `allow` (Claude Code refuses --dangerously-skip-permissions as root);
 * `installEnv` is the install's environment beyond HOME (SESSION_HUB_WAKE_WAIT_MS).
 */
export async function claudeProject(options: {
  modelUrl: string;
  hubEnv: Record<string, string>;
  allow?: string[];
  record?: boolean;
  recordEnv?: string;
  installEnv?: Record<string, string>;
  /** More `hook install` options (`--command "npx session-hub"`). */
  installArgs?: string[];
}): Promise<ClaudeProject> {
  const root = mkdtempSync(join(tmpdir(), 'session-hub-claude-'));
  const dir = join(root, 'project');
  const home = join(root, 'home');
  mkdirSync(dir, { recursive: true });
  mkdirSync(home, { recursive: true });
  writeClaudeState(home, [dir]);
  const env: Record<string, string> = {
    HOME: home,
    PATH: process.env.PATH ?? '',
    TERM: 'xterm-256color',
    ANTHROPIC_BASE_URL: options.modelUrl,
    ANTHROPIC_API_KEY: FAKE_ANTHROPIC_KEY,
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    ...options.hubEnv,
  };
  const install = await runCli(['hook', 'install', 'claude', '--write', ...(options.installArgs ?? [])], { cwd: dir, env: { ...options.installEnv, HOME: home } });
  expect(install.code, install.stderr).toBe(0);
  const settingsFile = join(dir, '.claude', 'settings.json');
  const settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as { hooks: ClaudeProject['installed']; permissions?: unknown };
  const installed = structuredClone(settings.hooks);
  if (options.allow) settings.permissions = { allow: options.allow };
  const recordFile = join(root, 'payloads.jsonl');
  if (options.record) {
    for (const entries of Object.values(settings.hooks)) entries[0]!.hooks.push({ type: 'command', command: `node ${JSON.stringify(RECORDER)} ${JSON.stringify(recordFile)}` });
  }
  const envFile = join(root, 'env.txt');
  if (options.recordEnv) settings.hooks.Stop![0]!.hooks.push({ type: 'command', command: `node ${JSON.stringify(ENV_RECORDER)} ${JSON.stringify(envFile)} ${options.recordEnv}` });
  writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  const agent = `claude-code-${agentBinaries().versions['@anthropic-ai/claude-code']}`;
  return { agent, dir, home, env, recordFile, installed, envFile, // retried: an agent (or its keeper) that is still exiting may write a last file while the tree goes
    remove: () => rmSync(root, { recursive: true, force: true, maxRetries: 25, retryDelay: 200 }) };
}

export interface AgentRun {
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
}

/** Runs a command to its end (killed after `timeoutMs`). */
export function runToEnd(command: string, args: string[], options: { cwd: string; env: Record<string, string>; stdin?: string; timeoutMs?: number }): Promise<AgentRun> {
  const started = performance.now();
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 90_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr, wallMs: performance.now() - started });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.stdin ?? '');
  });
}

/** `claude -p <prompt>` in the project, JSON output: how fleets, CI and dispatchers run it. */
export function claudeHeadless(project: AgentProject, prompt: string, args: string[] = []): Promise<AgentRun> {
  return runToEnd(agentBinaries().claude, ['-p', prompt, '--output-format', 'json', ...args], { cwd: project.dir, env: project.env });
}

/**
 * Claude Code interactive in a pseudo-terminal (`script -qfec`): started with the prompt, waits
 * until `ready()` says the turn is over, then types `/exit` and waits for the CLI to end.
 */
export async function claudeInteractive(project: AgentProject, prompt: string, ready: () => Promise<boolean>, timeoutMs = 90_000): Promise<AgentRun & { screen: string }> {
  const started = performance.now();
  const { child, screen, stderr, ended, type } = startInPty([agentBinaries().claude, prompt], { cwd: project.dir, env: { ...project.env, COLUMNS: '120', LINES: '40' } });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  try {
    const deadline = Date.now() + timeoutMs - 10_000;
    while (!(await ready())) {
      if (Date.now() > deadline) throw new Error(`interactive Claude Code: the turn did not end; screen:\n${screen().slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    await type('/exit');
    const code = await Promise.race([ended, new Promise<'open'>((r) => setTimeout(() => r('open'), 20_000))]);
    if (code === 'open') {
      child.stdin.write('\x04\x04');
      return { code: await ended, stdout: screen(), stderr: stderr(), screen: screen(), wallMs: performance.now() - started };
    }
    return { code, stdout: screen(), stderr: stderr(), screen: screen(), wallMs: performance.now() - started };
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

/** The payloads the recorder hook saw, in order. */
export function recordedPayloads(project: AgentProject): Record<string, unknown>[] {
  let text = '';
  try {
    text = readFileSync(project.recordFile, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The values the environment recorder saw, one per Stop, in order. */
export function recordedEnv(project: ClaudeProject): string[] {
  try {
    return readFileSync(project.envFile, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** The waiter `hook install` wrote beside the wake event's hook (`<bridge> --wake`), if any. */
export function installedWaiter(project: ClaudeProject): Record<string, unknown> | undefined {
  const event = getFlavor('claude')!.hookConfig!.wakeHook!.event;
  return (project.installed[event] ?? []).flatMap((entry) => entry.hooks).find((hook) => String(hook.command).endsWith(' --wake'));
}
