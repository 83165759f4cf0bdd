/**
 * `npm run bench:machines`: how long a person waits for the machine runner (spec section 14). A real
 * hub, a real `session-hub runner` and the pinned Claude Code CLI (test/agents/clis) against a local
 * scripted model server; per run:
 * - start: from `POST /api/machines/:id/sessions` with a prompt to the agent's first model request
 *   carrying that prompt (the runner spawns `claude` in stream-json mode and hands it the prompt);
 * - message: once that turn completed and the agent idles, from `POST /api/sessions/:sid/messages`
 *   to the model request carrying the message (the hub relays it to the runner, the runner writes it
 *   to the live agent's stdin);
 * then the session is stopped. Baseline in the same run: a `GET /healthz` round trip. Prints p50 and
 * p99 of each and the ratios. BENCH_MACHINE_RUNS (default 8).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { installAgentClis } from '../test/agents/helpers/agent-clis.js';
import { startAnthropicServer } from '../test/agents/helpers/anthropic-server.js';
import { fixed, percentile } from './stats.js';
import { startHubTarget } from './targets.js';

const RUNS = Number(process.env.BENCH_MACHINE_RUNS ?? 8);
const REPO = resolve(import.meta.dirname, '../..');
const CLI = join(REPO, 'dist/hub/cli.js');
const MACHINE = 'bench-machine-token-0001';
const OPERATOR = 'bench-operator-token-0001';
const KEY = 'sk-ant-scripted-bench-key-000000000000';

async function call<T>(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${OPERATOR}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as T };
}

async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = 60_000, everyMs = 2): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`bench:machines: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

async function main(): Promise<void> {
  const clis = await installAgentClis(join(REPO, 'test/agents/clis'));
  const hub = await startHubTarget(`machine:default:${MACHINE},operator:default:${OPERATOR}`);
  const model = await startAnthropicServer({ tools: [], finalText: 'Done.' });
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'session-hub-bench-machines-')));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(join(home, '.claude.json'), JSON.stringify({
    hasCompletedOnboarding: true,
    theme: 'dark',
    customApiKeyResponses: { approved: [KEY.slice(-20)], rejected: [] },
    projects: { [project]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
  }));
  const runner = spawn(process.execPath, [CLI, 'runner', '--hub', hub.url, '--root', root], {
    env: {
      PATH: `${dirname(clis.claude)}:${process.env.PATH ?? ''}`,
      HOME: home,
      XDG_CONFIG_HOME: root,
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: KEY,
      DISABLE_TELEMETRY: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      SESSION_HUB_MACHINE_TOKEN: MACHINE,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const starts: number[] = [];
  const messages: number[] = [];
  const healthz: number[] = [];
  const sees = (text: string, from: number) => () => (model.requests.slice(from).some((r) => Array.isArray(r.tools) && r.tools.length > 0 && JSON.stringify(r.messages).includes(text)) ? Date.now() : undefined);
  try {
    const machineId = await until('the runner to register', async () => (await call<{ machines: { machineId: string; online: boolean }[] }>(hub.url, 'GET', '/api/machines')).body.machines.find((m) => m.online)?.machineId, 30_000, 50);
    console.log(`bench:machines: ${RUNS} runs, claude ${clis.versions['@anthropic-ai/claude-code']}, runner online as ${machineId}`);
    for (let run = 0; run < RUNS; run++) {
      for (let i = 0; i < 5; i++) {
        const at = performance.now();
        await fetch(`${hub.url}/healthz`);
        healthz.push(performance.now() - at);
      }
      const prompt = `start prompt ${run}`;
      let from = model.requests.length;
      let at = Date.now();
      const started = await call<{ sid: string }>(hub.url, 'POST', `/api/machines/${machineId}/sessions`, { flavor: 'claude', path: project, prompt });
      if (started.status !== 201) throw new Error(`bench:machines: the start was refused (${started.status}): ${JSON.stringify(started.body)}`);
      starts.push((await until('the first model request', sees(prompt, from))) - at);
      const { sid } = started.body;
      await until('the turn to complete', async () => ((await call<{ status: string }[]>(hub.url, 'GET', `/api/sessions/${sid}/turns`)).body.some((t) => t.status === 'completed') ? true : undefined), 60_000, 20);

      const text = `message ${run}`;
      from = model.requests.length;
      at = Date.now();
      const posted = await call(hub.url, 'POST', `/api/sessions/${sid}/messages`, { text });
      if (posted.status !== 201) throw new Error(`bench:machines: the message was refused (${posted.status})`);
      messages.push((await until('the model request with the message', sees(text, from))) - at);
      await call(hub.url, 'POST', `/api/sessions/${sid}/stop`, {});
      console.log(`  run ${run + 1}: start ${starts.at(-1)} ms, message ${messages.at(-1)} ms`);
    }
  } finally {
    runner.kill('SIGTERM');
    await new Promise((r) => runner.once('close', r));
    await model.close();
    await hub.stop();
    rmSync(root, { recursive: true, force: true });
  }
  const base = percentile(healthz, 50);
  const row = (name: string, values: number[]) => `${name.padEnd(28)} p50 ${fixed(percentile(values, 50), 1).padStart(8)} ms   p99 ${fixed(percentile(values, 99), 1).padStart(8)} ms   p50 / healthz p50 ${fixed(percentile(values, 50) / base, 0).padStart(6)}×`;
  console.log('');
  console.log(`GET /healthz round trip       p50 ${fixed(base, 2).padStart(8)} ms   p99 ${fixed(percentile(healthz, 99), 2).padStart(8)} ms`);
  console.log(row('start → first model request', starts));
  console.log(row('message → next model request', messages));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
