/**
 * `npm run bench:work`: what the work of a session costs (spec section 15, issue 47). A repository
 * of 10,000 files (100 folders of 100) with 100 changed (80 modified, 20 new); a real hub and a
 * real `session-hub runner` holding it under a root; a session on that machine. Per call, p50/p99:
 * `GET /api/sessions/:sid/changes`, a file's diff, the whole diff; baseline in the same run, a bare
 * `git status --porcelain` of the same repository (what a person would type). BENCH_WORK_RUNS (30).
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { RunnerClient } from '../shared/client/runner-client.js';
import { fixed, percentile } from './stats.js';
import { startHubTarget } from './targets.js';

const RUNS = Number(process.env.BENCH_WORK_RUNS ?? 30);
const FOLDERS = 100;
const FILES_PER_FOLDER = 100;
const REPO_ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(REPO_ROOT, 'dist/hub/cli.js');
const MACHINE = 'bench-machine-token-0001';
const RUNNER = 'bench-runner-token-0001';
const OPERATOR = 'bench-operator-token-0001';
const run = promisify(execFile);

async function call<T>(url: string, path: string): Promise<T> {
  const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${OPERATOR}` } });
  const body = (await response.json()) as T;
  if (!response.ok) throw new Error(`bench:work: ${path} answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

async function timed(runs: number, fn: () => Promise<unknown>): Promise<number[]> {
  await fn(); // warm
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const at = performance.now();
    await fn();
    times.push(performance.now() - at);
  }
  return times;
}

/** 10,000 committed files, then 80 of them modified and 20 new. */
function makeRepository(repo: string): void {
  mkdirSync(repo, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  const lines = Array.from({ length: 20 }, (_, i) => `export const line${i} = ${i};`).join('\n');
  for (let f = 0; f < FOLDERS; f++) {
    mkdirSync(join(repo, `dir${f}`));
    for (let i = 0; i < FILES_PER_FOLDER; i++) writeFileSync(join(repo, `dir${f}`, `file${i}.ts`), `${lines}\n// ${f}/${i}\n`);
  }
  git('add', '.');
  git('-c', 'user.name=Bench', '-c', 'user.email=bench@example', 'commit', '-q', '-m', 'ten thousand files');
  for (let i = 0; i < 80; i++) writeFileSync(join(repo, `dir${i}`, 'file0.ts'), `${lines}\nexport const changed = ${i};\n`);
  for (let i = 0; i < 20; i++) writeFileSync(join(repo, `dir${i}`, 'new.ts'), `export const fresh = ${i};\n`);
}

async function main(): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'session-hub-bench-work-')));
  const repo = join(root, 'big');
  const started = performance.now();
  makeRepository(repo);
  console.log(`bench:work: a repository of ${FOLDERS * FILES_PER_FOLDER} files, 100 changed, made in ${fixed((performance.now() - started) / 1000, 1)} s; ${RUNS} calls each`);
  const hub = await startHubTarget(`machine:default:${MACHINE},runner:default:${RUNNER},operator:default:${OPERATOR}`);
  const runner = spawn(process.execPath, [CLI, 'runner', '--hub', hub.url, '--root', root], {
    env: { PATH: process.env.PATH ?? '', HOME: root, XDG_CONFIG_HOME: root, SESSION_HUB_MACHINE_TOKEN: MACHINE },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let client: RunnerClient | undefined;
  try {
    let machineId: string | undefined;
    for (const deadline = Date.now() + 30_000; machineId === undefined && Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
      machineId = (await call<{ machines: { machineId: string; online: boolean }[] }>(hub.url, '/api/machines')).machines.find((m) => m.online)?.machineId;
    }
    if (machineId === undefined) throw new Error('bench:work: the runner did not register');
    client = await RunnerClient.connect({ url: hub.url, token: RUNNER });
    const { session } = await client.startSession({ tag: 'bench-work', flavor: 'claude', source: 'startup', metadata: { path: repo, host: hostname(), machineId } });
    const sid = session.sid;
    const changes = await call<{ files: unknown[] }>(hub.url, `/api/sessions/${sid}/changes`);
    if (changes.files.length !== 100) throw new Error(`bench:work: expected 100 changes, got ${changes.files.length}`);

    const gitStatus = await timed(RUNS, () => run('git', ['-C', repo, 'status', '--porcelain']));
    const listed = await timed(RUNS, () => call(hub.url, `/api/sessions/${sid}/changes`));
    const oneDiff = await timed(RUNS, () => call(hub.url, `/api/sessions/${sid}/changes/diff?file=dir7/file0.ts`));
    const wholeDiff = await timed(RUNS, () => call(hub.url, `/api/sessions/${sid}/changes/diff`));

    const base = percentile(gitStatus, 50);
    const row = (name: string, values: number[]) => `${name.padEnd(30)} p50 ${fixed(percentile(values, 50), 1).padStart(7)} ms   p99 ${fixed(percentile(values, 99), 1).padStart(7)} ms   p50 / git status p50 ${fixed(percentile(values, 50) / base, 2).padStart(6)}×`;
    console.log('');
    console.log(row('git status --porcelain (bare)', gitStatus));
    console.log(row('GET …/changes', listed));
    console.log(row('GET …/changes/diff?file=', oneDiff));
    console.log(row('GET …/changes/diff (all 100)', wholeDiff));
  } finally {
    client?.close();
    runner.kill('SIGTERM');
    await new Promise((r) => runner.once('close', r));
    await hub.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
