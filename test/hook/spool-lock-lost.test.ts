/**
 * issue 26.6: a spool lock holder still at work past the lock's 10 s age rule (a slow hub) keeps
 * its lock (it refreshes it), and a holder that did lose it writes nothing more; it removes only
 * the events it settled. Two real hook processes against a slow hub (a local HTTP server that
 * answers every batch after 3 s, as a loaded hub would): the first holds the spool for four
 * requests (over 10 s); the second fires meanwhile. Its event must reach the hub.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_TOKENS } from '../helpers/tokens.js';
import { fixture, gatedUrl, hubSpool, stopDrainers } from './run-cli.js';

const BRIDGE = resolve(import.meta.dirname, '../../dist/hook-bridge.cjs');
const claude = fixture('claude-session.json');
const tag = claude[0]!.session_id as string;
const sleep = (ms: number) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));

let spoolDir: string;
beforeEach(() => {
  spoolDir = mkdtempSync(join(tmpdir(), 'session-hub-spool-'));
});
afterEach(() => {
  stopDrainers(spoolDir);
  rmSync(spoolDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

/**
 * A hub that answers every event `applied` after `delayMs` and records it; a batch holding an event
 * of a refused tool call gets 503 (the hub cannot take it for now).
 */
async function slowHub() {
  const state = { applied: new Set<string>(), delayMs: 3000, refuseTools: new Set<string>() };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      // only the hook route: the bridge's agent keeper reports elsewhere (POST /api/hooks/agent)
      if (req.url !== '/api/hooks') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found","message":"not this fake hub\'s route"}');
        return;
      }
      const { events } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { events: { id: string; payload: { tool_use_id?: string } }[] };
      if (events.some((e) => state.refuseTools.has(e.payload.tool_use_id ?? ''))) {
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"internal","message":"busy"}');
        return;
      }
      setTimeout(() => {
        for (const e of events) state.applied.add(e.id);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results: events.map((e) => ({ id: e.id, outcome: 'applied' })) }));
      }, state.delayMs);
    });
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolveClose) => server.close(() => resolveClose()));
  };
  return Object.assign(state, { url, close });
}

function hook(payload: Record<string, unknown>, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BRIDGE, 'claude'], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(JSON.stringify(payload));
  return new Promise((resolveExit) => child.once('close', (code) => resolveExit({ code, stderr })));
}

/** Every event still waiting in a spool dir: the spool's lines and the queued part files. */
function waitingEvents(dir: string): { id: string; payload: { tool_use_id?: string } }[] {
  const file = join(dir, 'spool-claude.jsonl');
  const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  const parts = readdirSync(dir).filter((n) => n.includes('.part-') && n.endsWith('.json')).map((n) => readFileSync(join(dir, n), 'utf8'));
  return [...lines, ...parts].map((line) => JSON.parse(line) as { id: string; payload: { tool_use_id?: string } });
}

describe('a spool lock holder busy past the age rule (a slow hub)', () => {
  it('keeps its lock; an event another hook spools meanwhile is not erased and reaches the hub', { timeout: 120_000 }, async () => {
    const hub = await slowHub();
    try {
      const env = { SESSION_HUB_URL: hub.url, SESSION_HUB_TOKEN: TEST_TOKENS.runner, SESSION_HUB_SPOOL_DIR: spoolDir, SESSION_HUB_DRAIN_BACKOFF_MS: '300', SESSION_HUB_DRAIN_MAX_BACKOFF_MS: '600' };
      // a spool left by an outage: 2,100 events, five requests of up to 500 at 3 s each
      const dir = hubSpool(env);
      mkdirSync(dir, { recursive: true });
      const tool = claude[2]!;
      const seeded = Array.from({ length: 2100 }, (_, i) => ({ id: `seeded-${i}`, flavor: 'claude', firedAt: 1_764_000_000_000 + i, seq: i, payload: { ...tool, tool_use_id: `toolu_seed_${i}` }, tag }));
      writeFileSync(join(dir, 'spool-claude.jsonl'), seeded.map((e) => JSON.stringify(e)).join('\n') + '\n');

      // the first hook sends the whole spool with a long budget: it holds the lock for about 15 s
      hub.refuseTools.add('toolu_second');
      const first = hook({ ...tool, tool_use_id: 'toolu_first' }, { ...env, SESSION_HUB_HOOK_BUDGET_MS: '40000' });
      await sleep(11_500);
      // the second fires past the age rule; the hub does not take its event for now
      const second = await hook({ ...tool, tool_use_id: 'toolu_second' }, env);
      expect(second.code).toBe(0);
      expect((await first).code).toBe(0);

      // the first holder's rewrite did not erase it
      const kept = waitingEvents(dir).find((e) => e.payload.tool_use_id === 'toolu_second');
      expect(kept, 'the event spooled by the second hook is gone from the spool').toBeDefined();

      // the hub takes everything from now on: the next hook delivers all that waits
      hub.refuseTools.clear();
      hub.delayMs = 0;
      expect((await hook({ ...tool, tool_use_id: 'toolu_third' }, env)).code).toBe(0);
      expect(waitingEvents(dir)).toEqual([]);
      for (const e of seeded) expect(hub.applied.has(e.id)).toBe(true);
      expect(hub.applied.has(kept!.id)).toBe(true);
    } finally {
      await hub.close();
    }
  });
});

describe('a spool lock holder frozen past the age rule (a laptop asleep: SIGSTOP)', () => {
  it('finds its lock taken when it wakes, and writes nothing: neither the state, nor the spool, nor the new holder\'s lock', { timeout: 120_000 }, async () => {
    const gate = await gatedUrl('http://127.0.0.1:9'); // never forwarded: it only hangs
    try {
      await gate.hang();
      const env = { SESSION_HUB_URL: gate.url, SESSION_HUB_TOKEN: TEST_TOKENS.runner, SESSION_HUB_SPOOL_DIR: spoolDir, SESSION_HUB_HOOK_BUDGET_MS: '6000' };
      const child = spawn(process.execPath, [BRIDGE, 'claude'], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, stdio: ['pipe', 'ignore', 'ignore'] });
      const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
      child.stdin.end(JSON.stringify(claude[0]));
      await gate.accepted(); // it holds the spool lock, waiting for the hub's answer ...
      child.kill('SIGSTOP'); // ... and sleeps
      const dir = hubSpool(env);
      const lock = join(dir, 'spool-claude.lock');
      const spoolBefore = readFileSync(join(dir, 'spool-claude.jsonl'), 'utf8');
      const stateBefore = readFileSync(join(dir, 'state-claude.json'), 'utf8');
      await sleep(10_500);

      // meanwhile another process broke the stale lock and holds it now
      rmSync(lock);
      writeFileSync(lock, `${process.pid}.another-holder`);
      const spool = join(dir, 'spool-claude.jsonl');
      writeFileSync(spool, spoolBefore); // (the new holder's view of the spool)
      child.kill('SIGCONT');
      await exited;

      expect(readFileSync(lock, 'utf8')).toBe(`${process.pid}.another-holder`);
      expect(readFileSync(spool, 'utf8')).toBe(spoolBefore);
      expect(readFileSync(join(dir, 'state-claude.json'), 'utf8')).toBe(stateBefore);
    } finally {
      await gate.close();
    }
  });
});
