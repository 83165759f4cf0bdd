/**
 * `npm run bench:flood`: what one flooding socket costs another tenant. The real hub (default rate
 * limits) serves a bystander runner of tenant B that sends `session-alive` one after another; its
 * ack p50/p99 (and /healthz p50) are measured without a flood, then from the start of a flood by a
 * runner of tenant A in its own process (`session-alive` with acks, as fast as it can) until
 * BENCH_SECONDS after the hub cut the flooder (it is cut after 3 s of flooding; a socket.io client
 * does not reconnect after a server disconnect, and the SDK waits before it does). Prints the ratio
 * flood / quiet; the aim (issue 18) is p99 within 2x. The flooder takes a core: on a machine with
 * fewer idle cores than 2 the hub starves and the figures say more about the machine.
 */
import { spawn } from 'node:child_process';
import { io, type Socket } from 'socket.io-client';
import { fixed, percentile } from './stats.js';
import { startHubTarget } from './targets.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const FLOODER = 'bench-flooder-token-0001';
const BYSTANDER = 'bench-bystander-token-0001';
const TOKENS = `runner:tenant-a:${FLOODER},runner:tenant-b:${BYSTANDER}`;
/** The hub's defaults, not the write bench's lifted limits. */
const DEFAULT_LIMITS = { SESSION_HUB_RATE_LIMIT: '200', SESSION_HUB_RATE_BURST: '400', SESSION_HUB_TOKEN_RATE_LIMIT: '2000', SESSION_HUB_TOKEN_RATE_BURST: '4000' };

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function runner(url: string, token: string, reconnect: boolean): Promise<{ socket: Socket; sid: string }> {
  const socket = io(`${url}/runner`, { auth: { token }, transports: ['websocket'], forceNew: true, reconnection: reconnect, reconnectionDelay: 0, reconnectionDelayMax: 0 });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  const ack = (await socket.emitWithAck('session-start', { tag: `bench-${token}`, flavor: 'claude', source: 'startup' })) as { ok: boolean; session: { sid: string } };
  if (!ack.ok) throw new Error('session-start failed');
  return { socket, sid: ack.session.sid };
}

/** The flooder's own process: emits as fast as its event loop lets it, for ever (the bench kills it). */
async function flood(url: string): Promise<void> {
  const { socket, sid } = await runner(url, FLOODER, true);
  let sent = 0;
  let cuts = 0;
  socket.on('disconnect', () => {
    cuts++;
    process.stdout.write('flooder: cut\n');
  });
  const burst = () => {
    if (socket.connected) for (let i = 0; i < 500; i++, sent++) socket.emit('session-alive', { sid, time: 0 }, () => undefined);
    setImmediate(burst);
  };
  burst();
  setInterval(() => process.stdout.write(`flooder: ${sent} sent, ${cuts} cuts\n`), 1000);
}

/** Serial acks of the bystander and /healthz round trips for SECONDS: their delays in ms. */
async function measure(url: string, socket: Socket, sid: string, seconds = SECONDS): Promise<{ ack: number[]; health: number[] }> {
  const ack: number[] = [];
  const health: number[] = [];
  const until = Date.now() + seconds * 1000;
  let n = 0;
  while (Date.now() < until) {
    const started = performance.now();
    await socket.timeout(10_000).emitWithAck('session-alive', { sid, time: Date.now() });
    ack.push(performance.now() - started);
    if (++n % 10 === 0) {
      const probe = performance.now();
      await (await fetch(`${url}/healthz`)).text();
      health.push(performance.now() - probe);
    }
    // about 100 events/s: well inside the bystander's own limit
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { ack, health };
}

const line = (name: string, m: { ack: number[]; health: number[] }) =>
  `${name}: ${m.ack.length} acks, ack p50 ${fixed(percentile(m.ack, 50), 2)} ms / p99 ${fixed(percentile(m.ack, 99), 2)} ms, /healthz p50 ${fixed(percentile(m.health, 50), 2)} ms`;

async function main(): Promise<void> {
  if (process.argv[2] === '--flooder') return flood(process.argv[3]!);
  const hub = await startHubTarget(TOKENS, DEFAULT_LIMITS);
  try {
    say(`flood bench: hub at ${hub.url}, default limits (${DEFAULT_LIMITS.SESSION_HUB_RATE_LIMIT}/s per socket, bursts to ${DEFAULT_LIMITS.SESSION_HUB_RATE_BURST}), ${SECONDS} s per phase`);
    const { socket, sid } = await runner(hub.url, BYSTANDER, false);
    await measure(hub.url, socket, sid); // warm-up, discarded
    const quiet = await measure(hub.url, socket, sid);
    say(line('without flood', quiet));
    const flooder = spawn(process.execPath, [import.meta.filename, '--flooder', hub.url], { stdio: ['ignore', 'pipe', 'inherit'] });
    let flooderOutput = '';
    const floodStart = Date.now();
    let cutAfterMs = Number.NaN;
    flooder.stdout.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      if (text.includes('flooder: cut') && Number.isNaN(cutAfterMs)) cutAfterMs = Date.now() - floodStart;
      flooderOutput = text.trim().split('\n').pop() ?? '';
    });
    // the bystander is measured through the flood and BENCH_SECONDS past the cut (at most 30 s in all)
    const flooded = { ack: [] as number[], health: [] as number[] };
    while (Date.now() - floodStart < 30_000 && (Number.isNaN(cutAfterMs) || Date.now() - floodStart < cutAfterMs + SECONDS * 1000)) {
      const part = await measure(hub.url, socket, sid, 1);
      flooded.ack.push(...part.ack);
      flooded.health.push(...part.health);
    }
    flooder.kill('SIGKILL');
    say(line('with flood   ', flooded));
    say(`  ${flooderOutput}; cut ${fixed(cutAfterMs / 1000, 1)} s after the flood began`);
    const ratio = percentile(flooded.ack, 99) / percentile(quiet.ack, 99);
    say(`bystander ack p99 flood / quiet: ${fixed(ratio, 2)} (aim: within 2x -> ${ratio <= 2 ? 'met' : 'NOT met'}); p50 ratio ${fixed(percentile(flooded.ack, 50) / percentile(quiet.ack, 50), 2)}`);
    socket.disconnect();
  } finally {
    await hub.stop();
  }
}

main().then(
  () => {
    if (process.argv[2] !== '--flooder') process.exit(0);
  },
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
