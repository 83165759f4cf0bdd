/**
 * Decision-to-waiter latency of tool approvals (docs/attention.md), on a real hub in this process
 * (SQLite, loopback HTTP): for each of N approvals, one is opened through the service and waited for
 * (`waitForDecision`), then decided with `POST /api/sessions/:sid/approvals/:id`; the latency is from
 * sending the POST to the waiter holding the decision. Baseline, measured in the same run: the HTTP
 * round trip of `GET /healthz` on the same hub. A second line decides through another store of the
 * same database, so the waiter learns of it only by reading the store (another hub process's case;
 * `APPROVAL_POLL_MS`). The last line goes through real hook processes: a `node dist/hook-bridge.cjs
 * claude` process fed a PermissionRequest waits on the hub; from sending the decision POST to that
 * process's stdout holding the decision.
 *
 *   npm run build && node dist/bench/approvals.js [--approvals 200] [--hook-approvals 200]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../hub/config.js';
import { benchArgs } from './args.js';
import { startSession } from '../hub/lifecycle/session-start.js';
import { createLogger } from '../hub/log.js';
import { startHub } from '../hub/main.js';
import { waitForDecision } from '../hub/people/approval-wait.js';
import { decideApproval, openApproval } from '../hub/people/approvals.js';
import type { Actor, HubDeps } from '../hub/services/deps.js';
import { listPendingApprovals } from '../hub/store/approvals.js';
import { getSessionByTag } from '../hub/store/sessions.js';
import { SqliteStore } from '../hub/store/sqlite/sqlite-store.js';
import { fixed, percentile, healthzRoundTrips } from './stats.js';

const OPERATOR = 'bench-operator-token-0001';
const RUNNER = 'bench-runner-token-0001';
const BRIDGE = join(dirname(fileURLToPath(import.meta.url)), '..', 'hook-bridge.cjs');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const actor: Actor = { namespace: 'default', role: 'runner', by: 'runner' };

function line(name: string, values: number[], baselineP50?: number): string {
  const p50 = percentile(values, 50);
  const ratio = baselineP50 === undefined ? '' : `  (p50 ${fixed(p50 / baselineP50, 2)}x the baseline)`;
  return `${name.padEnd(44)} p50 ${fixed(p50, 2).padStart(7)} ms  p99 ${fixed(percentile(values, 99), 2).padStart(7)} ms${ratio}`;
}

/**
 * One approval through a real hook process: it is spawned with Claude Code's PermissionRequest
 * payload, the hub opens the approval (read from the store), the decision POST is sent, and the
 * time runs until the process's stdout holds the decision.
 */
async function throughHookProcess(url: string, deps: HubDeps, spoolDir: string, i: number, decide: (sid: string, approvalId: string) => Promise<Response>): Promise<number> {
  const tag = 'bench-hook-approvals';
  const payload = { session_id: tag, cwd: '/tmp/bench', hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: `echo ${i}` } };
  const child = spawn(process.execPath, [BRIDGE, 'claude'], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SESSION_HUB_URL: url, SESSION_HUB_TOKEN: RUNNER, SESSION_HUB_SPOOL_DIR: spoolDir }, stdio: ['pipe', 'pipe', 'ignore'] });
  let printed: () => void = () => undefined;
  const output = new Promise<void>((resolveOutput) => (printed = resolveOutput));
  child.stdout.on('data', () => printed());
  const exited = new Promise((resolveExit) => child.once('close', resolveExit));
  child.stdin.end(JSON.stringify(payload));
  for (let tries = 0; ; tries++) {
    const session = await getSessionByTag(deps.store, { namespace: 'default', tag });
    const pending = session === undefined ? [] : await listPendingApprovals(deps.store, session.sid);
    if (session !== undefined && pending.length > 0) {
      const start = performance.now();
      const answer = decide(session.sid, pending[0]!.approvalId);
      await output;
      const took = performance.now() - start;
      await (await answer).arrayBuffer();
      await exited;
      return took;
    }
    if (tries > 2000) throw new Error(`hook process ${i} opened no approval`);
    await sleep(2);
  }
}

async function main(): Promise<void> {
  const values = benchArgs({ approvals: { type: 'string', default: '200' }, 'hook-approvals': { type: 'string', default: '200' } }, 'npm run bench:approvals -- [--approvals 200] [--hook-approvals 200]\n  decision-to-waiter latency of tool approvals, in-process and through real hook processes (docs/attention.md)');
  const count = Number(values.approvals);
  const hookCount = Number(values['hook-approvals']);
  const dataDir = mkdtempSync(join(tmpdir(), 'session-hub-bench-approvals-'));
  const config = loadConfig({}, { host: '127.0.0.1', port: 0, dataDir, tokens: `operator:default:${OPERATOR},runner:default:${RUNNER}`, logLevel: 'silent', rateLimitPerSecond: 100_000, rateLimitBurst: 100_000 });
  const hub = await startHub(config, { log: createLogger('silent') });
  try {
    const { session } = await startSession(hub.deps, actor, { tag: 'bench-approvals', flavor: 'claude', source: 'startup' });
    const decideFor = (sid: string, approvalId: string) =>
      fetch(`${hub.url}/api/sessions/${sid}/approvals/${approvalId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
        body: '{"decision":"allow"}',
      });
    const decide = (approvalId: string) => decideFor(session.sid, approvalId);

    // warm-up: JIT, connection pool, statement caches
    for (let i = 0; i < 20; i++) {
      const { approvalId } = await openApproval(hub.deps, actor, { sid: session.sid, tool: 'Bash', input: { command: 'true' } });
      const waiting = waitForDecision(hub.deps, approvalId, 10_000);
      await (await decide(approvalId)).arrayBuffer();
      await waiting;
      await (await fetch(`${hub.url}/healthz`)).arrayBuffer();
    }

    const baseline = await healthzRoundTrips(hub.url, count);

    const http: number[] = [];
    for (let i = 0; i < count; i++) {
      const { approvalId } = await openApproval(hub.deps, actor, { sid: session.sid, tool: 'Bash', input: { command: `echo ${i}` } });
      const waiting = waitForDecision(hub.deps, approvalId, 10_000);
      const start = performance.now();
      const answer = decide(approvalId);
      const decided = await waiting;
      http.push(performance.now() - start);
      if (decided?.status !== 'allowed') throw new Error(`approval ${approvalId} ended ${decided?.status ?? 'without a decision'}`);
      await (await answer).arrayBuffer();
    }

    // another hub's store on the same file stands for another process: only the store carries the decision
    const otherStore = SqliteStore.open(config.databaseFile);
    const other: HubDeps = { ...hub.deps, store: otherStore, hubId: 'bench-other' };
    const polled: number[] = [];
    try {
      for (let i = 0; i < Math.min(count, 50); i++) {
        const { approvalId } = await openApproval(hub.deps, actor, { sid: session.sid, tool: 'Bash', input: { command: `echo ${i}` } });
        const waiting = waitForDecision(hub.deps, approvalId, 10_000);
        const start = performance.now();
        await decideApproval(other, { ...actor, role: 'operator', by: 'user' }, { sid: session.sid, approvalId, decision: 'allow', decidedBy: 'bench' });
        await waiting;
        polled.push(performance.now() - start);
      }
    } finally {
      await otherStore.close();
    }

    const spoolDir = mkdtempSync(join(tmpdir(), 'session-hub-bench-spool-'));
    const hooked: number[] = [];
    try {
      for (let i = 0; i < hookCount; i++) hooked.push(await throughHookProcess(hub.url, hub.deps, spoolDir, i, decideFor));
    } finally {
      rmSync(spoolDir, { recursive: true, force: true });
    }

    process.stdout.write(`approvals: ${count} decided over HTTP, one at a time (SQLite, loopback)\n`);
    process.stdout.write(`${line('baseline: GET /healthz round trip', baseline)}\n`);
    process.stdout.write(`${line('decision POST sent -> waiter has it', http, percentile(baseline, 50))}\n`);
    process.stdout.write(`${line(`decided on another store (${polled.length}) -> waiter`, polled, percentile(baseline, 50))}\n`);
    process.stdout.write(`${line(`decision POST sent -> hook stdout (${hooked.length})`, hooked, percentile(baseline, 50))}\n`);
  } finally {
    await hub.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
