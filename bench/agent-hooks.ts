/**
 * `npm run bench:agent-hooks`: what our hooks cost the real Claude Code CLI, and what reaches the
 * hub. `claude -p` (the pinned CLI: test/agents/clis) runs one scripted turn of TOOLS Bash calls
 * against a local model server, in three set-ups, alternating run by run:
 * - `no hooks`: the baseline;
 * - `installed` (what `hook install claude` writes now: every hook synchronous);
 * - `async` (the earlier install: every hook `"async": true` but SessionEnd and PermissionRequest).
 * Per set-up: the CLI's wall time p50/p99, the agent's wait per hook ((p50 − baseline p50) / hooks
 * fired), and how many runs left the hub with the turn completed, every tool done and the session
 * ended, read 5 s after the CLI exits. Interactive (`claude` in a pseudo-terminal, `script(1)`):
 * the time from the start to the turn's closing model step, in the same three set-ups; the hooks
 * before it: SessionStart, UserPromptSubmit, PreToolUse + PostToolUse per tool.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { installAgentClis } from '../test/agents/helpers/agent-clis.js';
import { startAnthropicServer } from '../test/agents/helpers/anthropic-server.js';
import { fixed, percentile } from './stats.js';
import { startHubTarget } from './targets.js';

const RUNS = Number(process.env.BENCH_AGENT_RUNS ?? 8);
const TOOLS = Number(process.env.BENCH_AGENT_TOOLS ?? 5);
const REPO = resolve(import.meta.dirname, '../..');
const CLI = join(REPO, 'dist/hub/cli.js');
const RUNNER = 'bench-runner-token-0001';
const DASHBOARD = 'bench-dashboard-token-0001';
const KEY = 'sk-ant-scripted-bench-key-000000000000';
type Setup = 'no hooks' | 'installed' | 'async';
const SETUPS: Setup[] = ['no hooks', 'installed', 'async'];
/** Hooks a run fires: SessionStart, UserPromptSubmit, PreToolUse + PostToolUse per tool, Stop, SessionEnd. */
const HOOKS_PER_RUN = 4 + 2 * TOOLS;

/** Interactive: from the start to the turn's last model step (then the terminal is closed). */
async function interactive(claude: string, prompt: string, cwd: string, env: NodeJS.ProcessEnv, closedAt: number[]): Promise<number> {
  const before = closedAt.length;
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  const started = Date.now();
  const child = spawn('script', ['-qfec', `${quote(claude)} ${quote(prompt)}`, '/dev/null'], { cwd, env: { ...env, TERM: 'xterm-256color', COLUMNS: '120', LINES: '40' }, stdio: ['pipe', 'ignore', 'ignore'] });
  try {
    const deadline = Date.now() + 120_000;
    while (closedAt.length === before) {
      if (Date.now() > deadline) throw new Error('interactive claude: the turn did not end within 120 s');
      await new Promise((r) => setTimeout(r, 20));
    }
    return closedAt[before]! - started;
  } finally {
    child.kill('SIGKILL');
  }
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolveRun({ code, stdout, ms: performance.now() - started }));
  });
}

/** A project with HOME set up (onboarding done, folder trusted), `echo` allowed, hooks as the set-up says. */
async function project(root: string, setup: Setup, hubEnv: Record<string, string>): Promise<string> {
  const dir = join(root, setup.replace(/ /g, '-'));
  mkdirSync(join(dir, '.claude'), { recursive: true });
  let hooks: Record<string, { hooks: { async?: boolean }[] }[]> = {};
  if (setup !== 'no hooks') {
    await run(process.execPath, [CLI, 'hook', 'install', 'claude', '--write'], dir, { PATH: process.env.PATH, HOME: join(root, 'home'), ...hubEnv });
    hooks = (JSON.parse(readFileSync(join(dir, '.claude/settings.json'), 'utf8')) as { hooks: typeof hooks }).hooks;
    if (setup === 'async') for (const [name, entries] of Object.entries(hooks)) if (name !== 'SessionEnd' && name !== 'PermissionRequest') entries[0]!.hooks[0]!.async = true;
  }
  writeFileSync(join(dir, '.claude/settings.json'), JSON.stringify({ hooks, permissions: { allow: ['Bash(echo:*)'] } }));
  return dir;
}

interface HubSession { sid: string; tag: string | null; activity: string }
interface HubTurn { status: string; response: string | null; activities: { status: string }[] }

async function get<T>(url: string, path: string): Promise<T> {
  return (await (await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${DASHBOARD}` } })).json()) as T;
}

/** The run recorded whole: the turn completed with its answer, every tool done, the session ended. */
async function recordedWhole(url: string, agentSessionId: string): Promise<boolean> {
  const { sessions } = await get<{ sessions: HubSession[] }>(url, '/api/sessions?limit=500');
  const session = sessions.find((s) => s.tag === agentSessionId);
  if (!session) return false;
  const turn = (await get<HubTurn[]>(url, `/api/sessions/${session.sid}/turns`)).at(-1);
  return session.activity === 'ended' && turn?.status === 'completed' && turn.response === 'All done.' && turn.activities.length === TOOLS && turn.activities.every((a) => a.status === 'done');
}

async function main(): Promise<void> {
  const clis = await installAgentClis(join(REPO, 'test/agents/clis'));
  const hub = await startHubTarget(`runner:default:${RUNNER},dashboard:default:${DASHBOARD}`);
  const tools = Array.from({ length: TOOLS }, (_, i) => ({ name: 'Bash', input: { command: `echo step-${i}`, description: `Step ${i}` } }));
  const model = await startAnthropicServer({ tools, finalText: 'All done.' });
  const root = mkdtempSync(join(tmpdir(), 'session-hub-bench-agent-'));
  const home = join(root, 'home');
  mkdirSync(home, { recursive: true });
  const hubEnv = { SESSION_HUB_URL: hub.url, SESSION_HUB_TOKEN: RUNNER, SESSION_HUB_SPOOL_DIR: join(root, 'spool') };
  const dirs = new Map<Setup, string>();
  for (const setup of SETUPS) dirs.set(setup, await project(root, setup, hubEnv));
  writeFileSync(join(home, '.claude.json'), JSON.stringify({
    hasCompletedOnboarding: true,
    theme: 'dark',
    customApiKeyResponses: { approved: [KEY.slice(-20)], rejected: [] },
    projects: Object.fromEntries([...dirs.values()].map((dir) => [dir, { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true }])),
  }));
  const env = {
    PATH: process.env.PATH, HOME: home, ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: KEY,
    DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1', ...hubEnv,
  };
  const wall = new Map<Setup, number[]>(SETUPS.map((s) => [s, []]));
  const toClose = new Map<Setup, number[]>(SETUPS.map((s) => [s, []]));
  const whole = new Map<Setup, number>(SETUPS.map((s) => [s, 0]));
  try {
    await run(clis.claude, ['-p', 'warm up'], dirs.get('no hooks')!, env);
    for (let i = 0; i < RUNS; i++) {
      for (const setup of SETUPS) {
        const result = await run(clis.claude, ['-p', `Run the steps (${setup} ${i})`, '--output-format', 'json'], dirs.get(setup)!, env);
        if (result.code !== 0) throw new Error(`claude -p exited ${result.code} (${setup})`);
        wall.get(setup)!.push(result.ms);
        toClose.get(setup)!.push(await interactive(clis.claude, `Run the steps interactively (${setup} ${i})`, dirs.get(setup)!, env, model.closedAt));
        if (setup === 'no hooks') continue;
        const { session_id: sessionId } = JSON.parse(result.stdout) as { session_id: string };
        await new Promise((r) => setTimeout(r, 5000));
        if (await recordedWhole(hub.url, sessionId)) whole.set(setup, whole.get(setup)! + 1);
      }
    }
    const base = percentile(wall.get('no hooks')!, 50);
    process.stdout.write(`claude -p (${clis.versions['@anthropic-ai/claude-code']}), one turn of ${TOOLS} Bash calls, ${RUNS} runs per set-up, ${HOOKS_PER_RUN} hooks per run\n`);
    for (const setup of SETUPS) {
      const values = wall.get(setup)!;
      const p50 = percentile(values, 50);
      const perHook = setup === 'no hooks' ? '' : `   wait per hook ${fixed((p50 - base) / HOOKS_PER_RUN).padStart(6)} ms   recorded whole ${whole.get(setup)}/${RUNS}`;
      process.stdout.write(`${setup.padEnd(10)} p50 ${fixed(p50).padStart(7)} ms  p99 ${fixed(percentile(values, 99)).padStart(7)} ms  ${fixed(p50 / base, 2)}x${perHook}\n`);
    }
    const baseInteractive = percentile(toClose.get('no hooks')!, 50);
    const hooksBefore = 2 + 2 * TOOLS;
    process.stdout.write(`interactive claude, start to the turn's last model step, ${hooksBefore} hooks before it\n`);
    for (const setup of SETUPS) {
      const p50 = percentile(toClose.get(setup)!, 50);
      const perHook = setup === 'no hooks' ? '' : `   wait per hook ${fixed((p50 - baseInteractive) / hooksBefore).padStart(6)} ms`;
      process.stdout.write(`${setup.padEnd(10)} p50 ${fixed(p50).padStart(7)} ms  p99 ${fixed(percentile(toClose.get(setup)!, 99)).padStart(7)} ms  ${fixed(p50 / baseInteractive, 2)}x${perHook}\n`);
    }
  } finally {
    await model.close();
    await hub.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
