/**
 * `npm run bench:agent-sessions`: listing the sessions the agents keep on a machine (spec section
 * 16, issue 48: "10,000 transcripts answer in under a second, from what the runner has already
 * read"). 10,000 Claude Code transcripts of 20 turns under one root, read by the runner's
 * AgentSessionStore: the first listing (every file read) and the next ones (from memory, every file
 * still looked at for a change), p50/p99, against a bare `readdir` + `stat` of the same files.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentSessionStore } from '../runner/agent-sessions/store.js';
import { fixed, percentile } from './stats.js';

const FILES = Number(process.env.BENCH_AGENT_SESSIONS ?? 10_000);
const RUNS = Number(process.env.BENCH_AGENT_SESSIONS_RUNS ?? 10);
const PROJECTS = 100;

function transcript(id: string, cwd: string): string {
  const lines: string[] = [];
  for (let turn = 0; turn < 20; turn++) {
    const at = new Date(Date.UTC(2026, 10, 1, 9, turn)).toISOString();
    lines.push(JSON.stringify({ type: 'user', sessionId: id, cwd, timestamp: at, message: { role: 'user', content: `prompt ${turn} of ${id}` } }));
    lines.push(JSON.stringify({ type: 'assistant', sessionId: id, cwd, timestamp: at, message: { id: `msg_${turn}`, role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: `answer ${turn}` }], usage: { input_tokens: 100, output_tokens: 20 } } }));
  }
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'session-hub-bench-agent-sessions-')));
  const home = join(root, 'home');
  try {
    for (let p = 0; p < PROJECTS; p++) {
      const cwd = join(root, `project-${p}`);
      mkdirSync(cwd, { recursive: true });
      const folder = join(home, '.claude', 'projects', cwd.replaceAll('/', '-'));
      mkdirSync(folder, { recursive: true });
      for (let i = 0; i < FILES / PROJECTS; i++) {
        const id = randomUUID();
        writeFileSync(join(folder, `${id}.jsonl`), transcript(id, cwd));
      }
    }
    const store = new AgentSessionStore([root], { HOME: home });
    let at = performance.now();
    const first = await store.list();
    const cold = performance.now() - at;
    const warm: number[] = [];
    const bare: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      at = performance.now();
      await store.list();
      warm.push(performance.now() - at);
      at = performance.now();
      const projects = join(home, '.claude', 'projects');
      for (const folder of await readdir(projects)) for (const file of await readdir(join(projects, folder))) await stat(join(projects, folder, file));
      bare.push(performance.now() - at);
    }
    const base = percentile(bare, 50);
    console.log(`bench:agent-sessions: ${FILES} Claude Code transcripts of 20 turns in ${PROJECTS} projects; listed ${first.length} (the newest ${first.length})`);
    console.log(`first listing (every file read)        ${fixed(cold, 0).padStart(7)} ms`);
    console.log(`next listings (from memory)  p50 ${fixed(percentile(warm, 50), 0).padStart(6)} ms   p99 ${fixed(percentile(warm, 99), 0).padStart(6)} ms   p50 / bare readdir+stat p50 ${fixed(percentile(warm, 50) / base, 2)}×`);
    console.log(`bare readdir + stat          p50 ${fixed(base, 0).padStart(6)} ms   p99 ${fixed(percentile(bare, 99), 0).padStart(6)} ms`);
    console.log(`target: a listing from memory under 1,000 ms: ${percentile(warm, 99) < 1000 ? 'PASS' : 'MISS'}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
