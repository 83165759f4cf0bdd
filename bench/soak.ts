/**
 * Load and soak: N runners and M dashboards against the real hub process at a steady write rate
 * for a set time, loopback only. Prints writes acknowledged, writes lost (checked against the
 * hub's HTTP history at the end: must be 0), p50/p99 ack and delivery delay, and the hub's RSS at
 * start and end (from /metrics), and how the hub process exited (it must be a clean exit: a native
 * abort, e.g. of the SQLite driver on an unsupported Node, shows as a signal). With --idle the steady
 * phase alternates traffic and idle gaps (sockets connected, no writes): an idle process is where
 * V8 collects garbage outside a JavaScript context. Optionally ends with a reconnect storm.
 * Not part of `npm test`: `npm run soak -- --help`.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { io, type Socket } from 'socket.io-client';
import type { UpdateEvent } from '../shared/protocol/broadcast.js';
import type { DashboardClientToServerEvents, RunnerClientToServerEvents, ServerToClientEvents } from '../shared/protocol/events.js';
import type { JsonObject } from '../shared/protocol/json.js';
import { fixed, percentile } from './stats.js';
import { startHubTarget } from './targets.js';

type Runner = Socket<ServerToClientEvents, RunnerClientToServerEvents>;
type Dashboard = Socket<ServerToClientEvents, DashboardClientToServerEvents>;

const HELP = `npm run soak -- [options]
  --runners N      runner sockets, one session each (default 50, max 2000)
  --dashboards M   dashboards subscribed to every session (default 5, max 200)
  --rate R         writes per second per runner (default 2; total capped at 5000/s)
  --seconds S      length of the steady phase (default 30, max 3600)
  --traffic T      with --idle: seconds of traffic between idle gaps (default 60)
  --idle G         seconds of each idle gap: no writes, sockets stay connected (default 0: none)
  --storm          then drop every runner at once and reconnect them all (session-join)
  --help           this text
Starts its own hub process on 127.0.0.1 with a temporary data directory, removed at the end.`;

const { values: opts } = parseArgs({
  options: {
    runners: { type: 'string', default: '50' },
    dashboards: { type: 'string', default: '5' },
    rate: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '30' },
    traffic: { type: 'string', default: '60' },
    idle: { type: 'string', default: '0' },
    storm: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (opts.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}
function bounded(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    process.stderr.write(`--${name} must be a number from ${min} to ${max}\n`);
    process.exit(2);
  }
  return value;
}
const RUNNERS = Math.floor(bounded('runners', opts.runners!, 1, 2000));
const DASHBOARDS = Math.floor(bounded('dashboards', opts.dashboards!, 0, 200));
const RATE = bounded('rate', opts.rate!, 0.01, 5000 / RUNNERS);
const SECONDS = bounded('seconds', opts.seconds!, 1, 3600);
const TRAFFIC_SECONDS = bounded('traffic', opts.traffic!, 1, 3600);
const IDLE_SECONDS = bounded('idle', opts.idle!, 0, 3600);

const ms = (value: number) => (Number.isFinite(value) ? `${fixed(value)} ms` : '-');
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

function connect<S extends Socket>(url: string, namespace: string, auth: Record<string, unknown>): Promise<S> {
  const socket = io(`${url}${namespace}`, { auth, transports: ['websocket'], reconnection: false, forceNew: true }) as S;
  return new Promise((ok, fail) => {
    socket.once('connect', () => ok(socket));
    socket.once('connect_error', fail);
  });
}

async function hubRss(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^process_resident_memory_bytes (\S+)$/m.exec(text)?.[1] ?? Number.NaN);
}

interface Lane {
  sid: string;
  socket: Runner;
  version: number;
  inFlight: boolean;
  acked: Map<number, JsonObject>;
  maxSeq: number;
}

async function main(): Promise<void> {
  // fresh random tokens, never printed
  const tokens = { runner: randomBytes(16).toString('hex'), dashboard: randomBytes(16).toString('hex') };
  const hub = await startHubTarget(`runner:default:${tokens.runner},dashboard:default:${tokens.dashboard}`);
  const ackDelays: number[] = [];
  const deliveryDelays: number[] = [];
  let skipped = 0;
  let failed = 0;
  try {
    const rssStart = await hubRss(hub.url);
    const lanes: Lane[] = [];
    for (let start = 0; start < RUNNERS; start += 100) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(100, RUNNERS - start) }, async (_, i): Promise<Lane> => {
          const socket = await connect<Runner>(hub.url, '/runner', { token: tokens.runner });
          const ack = await socket.emitWithAck('session-start', { tag: `soak-${start + i}`, flavor: 'claude', source: 'startup', metadata: { path: '/soak' } });
          if (!ack.ok) throw new Error(ack.error.message);
          return { sid: ack.session.sid, socket, version: ack.session.metadata.version, inFlight: false, acked: new Map(), maxSeq: 0 };
        }),
      );
      lanes.push(...batch);
    }
    const dashboards: Dashboard[] = [];
    for (let i = 0; i < DASHBOARDS; i++) {
      const dashboard = await connect<Dashboard>(hub.url, '/dashboard', { token: tokens.dashboard });
      dashboard.on('update', (event: UpdateEvent) => {
        if (event.body.t !== 'update-session' || !event.body.metadata) return;
        const sentAt = event.body.metadata.value.sentAt;
        if (typeof sentAt === 'number') deliveryDelays.push(performance.now() - sentAt);
      });
      await dashboard.emitWithAck('subscribe', {});
      dashboards.push(dashboard);
    }
    const gaps = IDLE_SECONDS > 0 ? `, ${TRAFFIC_SECONDS} s of traffic then ${IDLE_SECONDS} s idle, repeated` : '';
    process.stdout.write(`soak: ${RUNNERS} runners, ${DASHBOARDS} dashboards, ${RATE}/s each (${(RUNNERS * RATE).toFixed(0)}/s total) for ${SECONDS} s${gaps}\n`);

    // one write in flight per runner keeps expectedVersion exact; a tick that finds one in flight is skipped
    const write = async (lane: Lane) => {
      if (lane.inFlight) return void skipped++;
      lane.inFlight = true;
      const sentAt = performance.now();
      try {
        const ack = await lane.socket.timeout(30_000).emitWithAck('update-metadata', { sid: lane.sid, expectedVersion: lane.version, patch: { sentAt } });
        ackDelays.push(performance.now() - sentAt);
        if (ack.result === 'error') failed++;
        else {
          lane.version = ack.version;
          if (ack.result === 'success') lane.acked.set(ack.version, ack.metadata);
        }
      } catch {
        failed++;
      } finally {
        lane.inFlight = false;
      }
    };
    const sleep = (seconds: number) => new Promise((r) => setTimeout(r, seconds * 1000));
    const traffic = async (seconds: number) => {
      const timers = lanes.map((lane) => {
        const period = 1000 / RATE;
        let timer: NodeJS.Timeout | undefined;
        const first = setTimeout(() => {
          void write(lane);
          timer = setInterval(() => void write(lane), period);
        }, Math.random() * period);
        return () => (clearTimeout(first), clearInterval(timer));
      });
      await sleep(seconds);
      for (const stop of timers) stop();
      while (lanes.some((lane) => lane.inFlight)) await new Promise((r) => setTimeout(r, 20));
    };
    let idleGaps = 0;
    for (let left = SECONDS; left > 0; ) {
      const busy = IDLE_SECONDS > 0 ? Math.min(TRAFFIC_SECONDS, left) : left;
      await traffic(busy);
      left -= busy;
      if (left <= 0) break;
      const idle = Math.min(IDLE_SECONDS, left);
      await sleep(idle);
      left -= idle;
      idleGaps++;
    }

    let stormLine = '';
    if (opts.storm) {
      for (const lane of lanes) lane.socket.disconnect();
      const started = performance.now();
      let healthMs = Number.NaN;
      const health = fetch(`${hub.url}/healthz`).then(() => (healthMs = performance.now() - started));
      await Promise.all(
        lanes.map(async (lane) => {
          lane.socket = await connect<Runner>(hub.url, '/runner', { token: tokens.runner });
          const join = await lane.socket.emitWithAck('session-join', { sid: lane.sid });
          if (!join.ok || join.session.metadata.version !== lane.version) throw new Error(`runner of ${lane.sid} did not converge`);
        }),
      );
      await health;
      stormLine = `storm: ${RUNNERS} runners reconnected and converged in ${ms(performance.now() - started)}; /healthz answered after ${ms(healthMs)}\n`;
    }

    // every acknowledged write must be in the hub's history with the value its ack reported
    let acknowledged = 0;
    let lost = 0;
    for (const lane of lanes) {
      const response = await fetch(`${hub.url}/api/sessions/${lane.sid}/history`, { headers: { authorization: `Bearer ${tokens.runner}` } });
      const { history } = (await response.json()) as { history: { version: number; metadata: JsonObject }[] };
      const stored = new Map(history.map((row) => [row.version, JSON.stringify(row.metadata)]));
      for (const [version, value] of lane.acked) {
        acknowledged++;
        if (stored.get(version) !== JSON.stringify(value)) lost++;
      }
    }
    const rssEnd = await hubRss(hub.url);
    for (const lane of lanes) lane.socket.disconnect();
    for (const dashboard of dashboards) dashboard.disconnect();

    process.stdout.write(
      [
        `writes acknowledged: ${acknowledged} (${(acknowledged / SECONDS).toFixed(1)}/s); failed: ${failed}; ticks skipped (write still in flight): ${skipped}`,
        `writes lost: ${lost}`,
        `ack delay: p50 ${ms(percentile(ackDelays, 50))}, p99 ${ms(percentile(ackDelays, 99))}, max ${ms(ackDelays.reduce((max, d) => Math.max(max, d), 0))}`,
        `delivery delay (send to dashboard): p50 ${ms(percentile(deliveryDelays, 50))}, p99 ${ms(percentile(deliveryDelays, 99))} over ${deliveryDelays.length} deliveries`,
        `hub RSS: start ${mib(rssStart)}, end ${mib(rssEnd)}; idle gaps: ${idleGaps}`,
        '',
      ].join('\n') + stormLine,
    );
    if (lost > 0) process.exitCode = 1;
  } finally {
    await hub.stop();
    // SIGTERM asks for a clean stop: anything but exit code 0 (a signal such as SIGABRT) is a failure
    const exit = hub.exitStatus?.();
    const clean = exit?.code === 0;
    process.stdout.write(`hub process (Node ${process.version}): ${exit === undefined ? 'exit not known' : exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`}${clean ? ', a clean exit' : ''}\n`);
    if (!clean) process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`soak failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
