/**
 * One benchmark scenario against one target: N runner sockets, each keeping one `update-metadata`
 * patch in flight per session lane, expectedVersion tracked from acks (and from broadcasts, for
 * shared sessions); plus one observer socket joined to the first session that times `update`
 * delivery from send to receipt. Bounded in time; counts only acknowledged successes.
 * Given several targets (hub processes of one cluster), runner i connects to target i mod n and the
 * observer to the second target, so its delivery delay crosses processes; CPU is summed over all.
 */
import { performance } from 'node:perf_hooks';
import { io, type Socket } from 'socket.io-client';
import type { Target } from './targets.js';

export interface Scenario {
  name: string;
  runners: number;
  /** Session lanes each runner drives, one write in flight per lane. */
  sessionsPerRunner: number;
  /** Runners per session: 1 = every runner has its own sessions; 10 = groups of 10 share one. */
  runnersPerSession: number;
}

export interface ScenarioResult {
  writes: number;
  writesPerSecond: number;
  mismatches: number;
  errors: Record<string, number>;
  ackMs: number[];
  deliveryMs: number[];
  /** Server CPU time per acknowledged write in the measured window, µs: robust to a noisy machine. */
  serverCpuUsPerWrite: number;
  /** The part of it spent on the server's main thread (its event loop), µs; NaN when not known. */
  serverMainThreadCpuUsPerWrite: number;
  /** The largest size of the server's WAL file seen during the run, bytes (0 when it has none). */
  serverWalBytesMax: number;
  /** The bench process's own CPU time per write, µs (clients and observer). */
  clientCpuUsPerWrite: number;
}

interface Timing {
  warmupMs: number;
  measureMs: number;
}

const ACK_TIMEOUT_MS = 10_000;
/** A runner-like starting document (~0.5 KiB), so merges and snapshots have something to carry. */
const START_METADATA = {
  path: '/home/dev/projects/session-hub',
  host: 'bench-machine',
  machineId: 'machine-bench-0001',
  claudeSessionId: 'claude-bench-session',
  name: 'benchmark session',
  os: 'linux',
  version: '1.2.3',
  summary: { text: 'A benchmark session writing metadata patches as fast as the hub acknowledges them.', updatedAt: 0 },
  tools: ['Read', 'Edit', 'Bash', 'Grep', 'Glob', 'WebFetch'],
};

type Ack = Record<string, unknown>;

async function connect(target: Target): Promise<Socket> {
  const socket = io(`${target.url}/runner`, { auth: { token: target.token }, transports: ['websocket'], reconnection: false, forceNew: true });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  return socket;
}

async function call(socket: Socket, event: string, payload: unknown, timeoutMs = ACK_TIMEOUT_MS): Promise<Ack> {
  return (await socket.timeout(timeoutMs).emitWithAck(event, payload)) as Ack;
}

/**
 * Setting sessions up may wait for the hub to finish with the previous scenario's runners (their
 * disconnects are one batch of reads per session: seconds across a slow link to the database).
 */
const SETUP_TIMEOUT_MS = 120_000;

async function startSession(socket: Socket, label: string): Promise<string> {
  const ack = await call(socket, 'session-start', { tag: `bench-${label}-${Math.random().toString(36).slice(2)}`, flavor: 'claude', source: 'startup', metadata: START_METADATA }, SETUP_TIMEOUT_MS);
  if (ack.ok !== true) throw new Error(`session-start failed: ${JSON.stringify(ack)}`);
  return (ack.session as { sid: string }).sid;
}

async function joinSession(socket: Socket, sid: string): Promise<void> {
  const ack = await call(socket, 'session-join', { sid }, SETUP_TIMEOUT_MS);
  if (ack.ok !== true) throw new Error(`session-join failed: ${JSON.stringify(ack)}`);
}

/** Connects in batches so 100 handshakes do not time out on a busy 2-core machine; round robin over targets. */
async function connectMany(targets: readonly Target[], count: number): Promise<Socket[]> {
  const sockets: Socket[] = [];
  for (let i = 0; i < count; i += 20) {
    sockets.push(...(await Promise.all(Array.from({ length: Math.min(20, count - i) }, (_, j) => connect(targets[(i + j) % targets.length]!)))));
  }
  return sockets;
}

interface Lane {
  socket: Socket;
  sid: string;
  expectedVersion: number;
}

export async function runScenario(target: Target | readonly Target[], scenario: Scenario, timing: Timing): Promise<ScenarioResult> {
  const targets = [target].flat();
  const cpuSeconds = () => targets.reduce((sum, t) => sum + t.cpuSeconds(), 0);
  const mainThreadCpuSeconds = () => targets.reduce((sum, t) => sum + (t.mainThreadCpuSeconds?.() ?? Number.NaN), 0);
  const walBytes = () => targets.reduce((sum, t) => sum + (t.walBytes?.() ?? 0), 0);
  const runners = await connectMany(targets, scenario.runners);
  // lane 0 belongs to runner 0, on targets[0]: with two targets the observer sits on the other one
  const observer = await connect(targets[1 % targets.length]!);
  const lanes: Lane[] = [];
  // Sessions: the first runner of each group starts them, the others of the group join.
  for (let group = 0; group < scenario.runners; group += scenario.runnersPerSession) {
    const members = runners.slice(group, group + scenario.runnersPerSession);
    for (let s = 0; s < scenario.sessionsPerRunner; s++) {
      const sid = await startSession(members[0]!, `${scenario.name}-${group}-${s}`);
      for (const member of members.slice(1)) await joinSession(member, sid);
      for (const member of members) lanes.push({ socket: member, sid, expectedVersion: 1 });
    }
  }
  // Shared sessions: a runner learns newer versions from the broadcasts it receives too.
  const lanesBySocket = new Map<Socket, Lane[]>();
  for (const lane of lanes) lanesBySocket.set(lane.socket, [...(lanesBySocket.get(lane.socket) ?? []), lane]);
  if (scenario.runnersPerSession > 1) {
    for (const [socket, own] of lanesBySocket) {
      socket.on('update', (event: { body: { sid: string; metadata?: { version: number } | null } }) => {
        const lane = own.find((l) => l.sid === event.body.sid);
        const version = event.body.metadata?.version;
        if (lane && version !== undefined && version > lane.expectedVersion) lane.expectedVersion = version;
      });
    }
  }

  const start = performance.now();
  const measureFrom = start + timing.warmupMs;
  const deadline = measureFrom + timing.measureMs;
  const inWindow = (t: number) => t >= measureFrom && t <= deadline;
  const result: ScenarioResult = { writes: 0, writesPerSecond: 0, mismatches: 0, errors: {}, ackMs: [], deliveryMs: [], serverCpuUsPerWrite: 0, serverMainThreadCpuUsPerWrite: Number.NaN, serverWalBytesMax: 0, clientCpuUsPerWrite: 0 };
  let cpuAtMeasureStart = Number.NaN;
  let mainThreadCpuAtMeasureStart = Number.NaN;
  const walTimer = setInterval(() => (result.serverWalBytesMax = Math.max(result.serverWalBytesMax, walBytes())), 100);
  let clientCpuAtMeasureStart = process.cpuUsage();
  const cpuTimer = setTimeout(() => {
    cpuAtMeasureStart = cpuSeconds();
    mainThreadCpuAtMeasureStart = mainThreadCpuSeconds();
    clientCpuAtMeasureStart = process.cpuUsage();
  }, timing.warmupMs);

  // the first lane of the observer's tenant (two targets may serve two tenants: bench:scale-out)
  const observerToken = targets[1 % targets.length]!.token;
  const observed = lanes.find((lane) => targets[runners.indexOf(lane.socket) % targets.length]!.token === observerToken) ?? lanes[0]!;
  await joinSession(observer, observed.sid);
  observer.on('update', (event: { body: { metadata?: { value?: { benchSentAt?: number } } | null } }) => {
    const sentAt = event.body.metadata?.value?.benchSentAt;
    const now = performance.now();
    if (typeof sentAt === 'number' && inWindow(sentAt)) result.deliveryMs.push(now - sentAt);
  });

  let n = 0;
  const drive = async (lane: Lane) => {
    while (performance.now() < deadline) {
      const sentAt = performance.now();
      let ack: Ack;
      try {
        ack = await call(lane.socket, 'update-metadata', {
          sid: lane.sid,
          expectedVersion: lane.expectedVersion,
          patch: { benchSentAt: sentAt, benchN: ++n, title: `write ${n}` },
        });
      } catch {
        // no ack within ACK_TIMEOUT_MS (a hub far behind its load): counted, and the lane goes on
        result.errors['no ack in 10 s'] = (result.errors['no ack in 10 s'] ?? 0) + 1;
        continue;
      }
      const ackedAt = performance.now();
      if (ack.result === 'success' || ack.result === 'version-mismatch') {
        lane.expectedVersion = Math.max(lane.expectedVersion, ack.version as number);
      }
      if (ack.result === 'success' && inWindow(sentAt) && ackedAt <= deadline) {
        result.writes++;
        result.ackMs.push(ackedAt - sentAt);
      } else if (ack.result === 'version-mismatch') {
        result.mismatches++;
      } else if (ack.result === 'error') {
        const code = String(ack.code);
        result.errors[code] = (result.errors[code] ?? 0) + 1;
        if (result.errors[code]! > 100) throw new Error(`too many '${code}' errors: ${String(ack.message)}`);
      }
    }
  };
  await Promise.all(lanes.map(drive));
  clearTimeout(cpuTimer);
  clearInterval(walTimer);
  result.serverCpuUsPerWrite = ((cpuSeconds() - cpuAtMeasureStart) * 1e6) / result.writes;
  result.serverMainThreadCpuUsPerWrite = ((mainThreadCpuSeconds() - mainThreadCpuAtMeasureStart) * 1e6) / result.writes;
  const clientCpu = process.cpuUsage(clientCpuAtMeasureStart);
  result.clientCpuUsPerWrite = (clientCpu.user + clientCpu.system) / result.writes;
  result.writesPerSecond = result.writes / (timing.measureMs / 1000);

  for (const socket of [...runners, observer]) socket.disconnect();
  return result;
}
