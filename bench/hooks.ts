/**
 * `npm run bench:hooks`: the wall time of one hook call as the agent runs it (the bundled bridge,
 * `node dist/hook-bridge.cjs claude`, payload on stdin), hub up and hub down, beside a bare
 * `node -e 0` measured in the same run, as p50/p99 and ratios; the installed `bin/session-hub.js
 * hook claude` path; and the agent-visible wait of an async hook (Claude Code `"async": true`):
 * the time until the hook process is spawned, after which the agent goes on.
 * Targets (docs/hooks.md): hub up, p50 <= 2x and p99 <= 3x a bare node start.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readDrainerState } from '../hub/hook/drainer.js';
import { targetDirs } from '../hub/hook/spool-target.js';
import { fixed, percentile } from './stats.js';
import { startHubTarget } from './targets.js';

const RUNS = Number(process.env.BENCH_HOOK_RUNS ?? 50);
const DIST = resolve(import.meta.dirname, '..');
const BRIDGE = join(DIST, 'hook-bridge.cjs');
const BIN = resolve(DIST, '../bin/session-hub.js');

/** Runs a process to its end: its wall time in ms, and the time until spawn() returned (what an async hook costs the agent). */
function timed(args: string[], stdin: string, env: NodeJS.ProcessEnv): Promise<{ wallMs: number; spawnMs: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'ignore', 'ignore'] });
  const spawnMs = performance.now() - started;
  // a process that exits before reading its stdin (node -e 0) closes the pipe: not an error here
  child.stdin.on('error', () => undefined);
  child.stdin.end(stdin);
  return new Promise((resolveRun, reject) => {
    child.once('error', reject);
    child.once('exit', () => resolveRun({ wallMs: performance.now() - started, spawnMs }));
  });
}

async function series(args: (i: number) => string[], stdin: (i: number) => string, env: NodeJS.ProcessEnv): Promise<{ wall: number[]; spawn: number[] }> {
  const wall: number[] = [];
  const spawnTimes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const run = await timed(args(i), stdin(i), env);
    wall.push(run.wallMs);
    spawnTimes.push(run.spawnMs);
  }
  return { wall, spawn: spawnTimes };
}

async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const { port } = server.address() as { port: number };
  await new Promise((resolveClose) => server.close(resolveClose));
  return `http://127.0.0.1:${port}`;
}

function payload(i: number): string {
  return JSON.stringify({
    session_id: 'bench-session',
    cwd: '/work/app',
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: `echo ${i}` },
    tool_response: { stdout: String(i) },
    tool_use_id: `toolu_bench_${i}_${Date.now()}`,
  });
}

/**
 * Claude Code turns with a transcript: even calls a UserPromptSubmit, odd calls a Stop after the
 * turn's answer (the real fixture's assistant lines) was appended; the transcript starts at 20 MB
 * of earlier lines, so a Stop that read the whole file would show.
 */
function transcriptTurns(dir: string): (i: number) => string {
  const transcript = join(dir, 'transcript.jsonl');
  const lines = readFileSync(resolve(DIST, '../test/hook/fixtures/claude-transcript.jsonl'), 'utf8').trimEnd().split('\n');
  const filler = `${JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', content: 'x'.repeat(2000) }] } })}\n`;
  writeFileSync(transcript, filler.repeat(Math.ceil((20 << 20) / filler.length)));
  const base = { session_id: 'bench-usage', transcript_path: transcript, cwd: '/work/app' };
  return (i) => {
    if (i % 2 === 0) return JSON.stringify({ ...base, hook_event_name: 'UserPromptSubmit', prompt: `turn ${i}` });
    appendFileSync(transcript, lines.slice(4).map((l) => l.replace(/msg_0[0-9A-Za-z]+/g, (id) => `${id}_${i}`)).join('\n') + '\n');
    return JSON.stringify({ ...base, hook_event_name: 'Stop', last_assistant_message: 'done' });
  };
}

function line(name: string, values: number[], baseline: { p50: number; p99: number }): string {
  const p50 = percentile(values, 50);
  const p99 = percentile(values, 99);
  return `${name.padEnd(44)} p50 ${fixed(p50).padStart(7)} ms  p99 ${fixed(p99).padStart(7)} ms   ${fixed(p50 / baseline.p50, 2)}x / ${fixed(p99 / baseline.p99, 2)}x`;
}

async function main(): Promise<void> {
  const hub = await startHubTarget();
  const spoolDirs: string[] = [];
  const envFor = (url: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'session-hub-bench-spool-'));
    spoolDirs.push(dir);
    // a drainer would compete with the measured calls: it waits past the run
    return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SESSION_HUB_URL: url, SESSION_HUB_TOKEN: hub.token, SESSION_HUB_SPOOL_DIR: dir, SESSION_HUB_DRAIN_BACKOFF_MS: '600000' };
  };
  try {
    // warm the file cache and the hub's first session
    await series(() => [BRIDGE, 'claude'], payload, envFor(hub.url));
    const bare = await series(() => ['-e', '0'], () => '', { PATH: process.env.PATH ?? '' });
    const up = await series(() => [BRIDGE, 'claude'], payload, envFor(hub.url));
    const down = await series(() => [BRIDGE, 'claude'], payload, envFor(await deadUrl()));
    const viaBin = await series(() => [BIN, 'hook', 'claude'], payload, envFor(hub.url));
    const usageDir = mkdtempSync(join(tmpdir(), 'session-hub-bench-transcript-'));
    spoolDirs.push(usageDir);
    const turns = await series(() => [BRIDGE, 'claude'], transcriptTurns(usageDir), envFor(hub.url));
    const stops = turns.wall.filter((_, i) => i % 2 === 1);
    const baseline = { p50: percentile(bare.wall, 50), p99: percentile(bare.wall, 99) };

    process.stdout.write(`hook call wall time, ${RUNS} sequential calls each (ratios: p50 / p99 against bare node -e 0, same run)\n`);
    process.stdout.write(`${line('node -e 0 (baseline)', bare.wall, baseline)}\n`);
    process.stdout.write(`${line('hook call, hub up (node dist/hook-bridge.cjs)', up.wall, baseline)}\n`);
    process.stdout.write(`${line('hook call, hub down (spooled)', down.wall, baseline)}\n`);
    process.stdout.write(`${line('hook call, hub up, via bin/session-hub.js', viaBin.wall, baseline)}\n`);
    process.stdout.write(`${line('Stop reading its turn of a 20 MB transcript', stops, baseline)}\n`);
    process.stdout.write(`${line('agent-visible wait, async hook (spawn only)', up.spawn, baseline)}\n`);
    const okP50 = percentile(up.wall, 50) <= 2 * baseline.p50;
    const okP99 = percentile(up.wall, 99) <= 3 * baseline.p99;
    process.stdout.write(`target hub up: p50 <= 2x ${okP50 ? 'met' : 'NOT met'}, p99 <= 3x ${okP99 ? 'met' : 'NOT met'}\n`);
  } finally {
    await hub.stop();
    for (const dir of spoolDirs) {
      // the hub-down series left a drainer waiting to retry: the bench leaves nothing running
      for (const hubDir of targetDirs(dir)) {
        const drainer = readDrainerState(hubDir, 'claude');
        if (drainer?.alive) process.kill(drainer.pid);
      }
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

await main();
