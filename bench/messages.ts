/**
 * Message-to-agent latency (docs/messages.md), on a real hub in this process (SQLite, loopback
 * HTTP). For each of N messages, the time from sending `POST /api/sessions/:sid/messages` until:
 * - a RunnerClient's `onMessage` handler holds it (the SDK path: the `/runner` event `message`);
 * - a waiting `node dist/hook-bridge.cjs claude --wake` process (Claude Code's asyncRewake Stop hook)
 *   has written it to stderr (the hook path that wakes an idle agent), spawned and waiting first;
 * - a `Stop` hook process started right after the POST has printed the block (spawn included: the
 *   agent's own stop is what starts it).
 * Baseline, measured in the same run: the HTTP round trip of `GET /healthz` on the same hub.
 *
 *   npm run bench:messages [-- --messages 200 --hook-messages 200]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunnerClient } from '../shared/client/runner-client.js';
import { benchArgs } from './args.js';
import { loadConfig } from '../hub/config.js';
import { createLogger } from '../hub/log.js';
import { startHub } from '../hub/main.js';
import { hasMessageWaiter } from '../hub/people/message-waiters.js';
import { getSessionByTag } from '../hub/store/sessions.js';
import { fixed, percentile, healthzRoundTrips } from './stats.js';

const OPERATOR = 'bench-operator-token-0001';
const RUNNER = 'bench-runner-token-0001';
const BRIDGE = join(dirname(fileURLToPath(import.meta.url)), '..', 'hook-bridge.cjs');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function line(name: string, values: number[], baselineP50?: number): string {
  const p50 = percentile(values, 50);
  const ratio = baselineP50 === undefined ? '' : `  (p50 ${fixed(p50 / baselineP50, 2)}x the baseline)`;
  return `${name.padEnd(52)} p50 ${fixed(p50, 2).padStart(8)} ms  p99 ${fixed(percentile(values, 99), 2).padStart(8)} ms${ratio}`;
}

function bridgeProcess(url: string, spoolDir: string, payload: object, args: string[]) {
  const child = spawn(process.execPath, [BRIDGE, 'claude', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SESSION_HUB_URL: url, SESSION_HUB_TOKEN: RUNNER, SESSION_HUB_SPOOL_DIR: spoolDir, SESSION_HUB_WAKE_WAIT_MS: '60000' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let printed: () => void = () => undefined;
  const output = new Promise<void>((resolveOutput) => (printed = resolveOutput));
  child.stdout.on('data', () => printed());
  child.stderr.on('data', () => printed());
  const exited = new Promise<number | null>((resolveExit) => child.once('close', resolveExit));
  child.stdin.end(JSON.stringify(payload));
  return { output, exited };
}

async function main(): Promise<void> {
  const values = benchArgs({ messages: { type: 'string', default: '200' }, 'hook-messages': { type: 'string', default: '200' } }, 'npm run bench:messages -- [--messages 200] [--hook-messages 200]\n  message-to-agent latency through the SDK and through real hook processes (docs/messages.md)');
  const count = Number(values.messages);
  const hookCount = Number(values['hook-messages']);
  const dataDir = mkdtempSync(join(tmpdir(), 'session-hub-bench-messages-'));
  const spoolDir = mkdtempSync(join(tmpdir(), 'session-hub-bench-spool-'));
  const config = loadConfig({}, { host: '127.0.0.1', port: 0, dataDir, tokens: `operator:default:${OPERATOR},runner:default:${RUNNER}`, logLevel: 'silent', rateLimitPerSecond: 100_000, rateLimitBurst: 100_000 });
  const hub = await startHub(config, { log: createLogger('silent') });
  const runner = await RunnerClient.connect({ url: hub.url, token: RUNNER });
  try {
    const post = (sid: string, text: string) =>
      fetch(`${hub.url}/api/sessions/${sid}/messages`, { method: 'POST', headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' }, body: JSON.stringify({ text }) });

    let held: (text: string) => void = () => undefined;
    runner.onMessage((message) => held(message.text));
    const { session } = await runner.startSession({ tag: 'bench-messages-sdk', flavor: 'claude', source: 'startup' });
    const toHandler = async (text: string) => {
      const got = new Promise<void>((resolveGot) => (held = (seen) => seen === text && resolveGot()));
      const start = performance.now();
      const answer = post(session.sid, text);
      await got;
      const took = performance.now() - start;
      await (await answer).arrayBuffer();
      return took;
    };

    // warm-up: JIT, connection pool, statement caches
    for (let i = 0; i < 20; i++) {
      await toHandler(`warm ${i}`);
      await (await fetch(`${hub.url}/healthz`)).arrayBuffer();
    }
    const baseline = await healthzRoundTrips(hub.url, count);
    const sdk: number[] = [];
    for (let i = 0; i < count; i++) sdk.push(await toHandler(`sdk message ${i}`));

    // the hook session: opened by its first Stop
    const tag = 'bench-messages-hook';
    const stop = { session_id: tag, cwd: '/tmp/bench', hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'done' };
    await bridgeProcess(hub.url, spoolDir, stop, []).exited;
    const hookSession = (await getSessionByTag(hub.deps.store, { namespace: 'default', tag }))!;

    const wake: number[] = [];
    for (let i = 0; i < hookCount; i++) {
      const waiter = bridgeProcess(hub.url, spoolDir, stop, ['--wake']);
      for (let tries = 0; !hasMessageWaiter(hub.deps, 'default', tag); tries++) {
        if (tries > 5000) throw new Error(`waiter ${i} never waited`);
        await sleep(1);
      }
      const start = performance.now();
      const answer = post(hookSession.sid, `wake message ${i}`);
      await waiter.output;
      wake.push(performance.now() - start);
      await (await answer).arrayBuffer();
      if ((await waiter.exited) !== 2) throw new Error(`waiter ${i} did not wake the agent`);
    }

    const stopped: number[] = [];
    for (let i = 0; i < hookCount; i++) {
      const start = performance.now();
      await (await post(hookSession.sid, `stop message ${i}`)).arrayBuffer();
      const hook = bridgeProcess(hub.url, spoolDir, stop, []);
      await hook.output;
      stopped.push(performance.now() - start);
      await hook.exited;
    }

    const base = percentile(baseline, 50);
    console.log(`message-to-agent latency, ${count} messages (SDK) and ${hookCount} (hooks), SQLite, loopback`);
    console.log(line('GET /healthz round trip (baseline)', baseline));
    console.log(line('POST -> RunnerClient.onMessage handler', sdk, base));
    console.log(line('POST -> waiting asyncRewake hook wrote it', wake, base));
    console.log(line('POST, then a Stop hook process printed the block', stopped, base));
  } finally {
    await runner.close();
    await hub.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(spoolDir, { recursive: true, force: true });
  }
}

await main();
