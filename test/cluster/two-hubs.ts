import { randomBytes } from 'node:crypto';
import { afterEach } from 'vitest';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import type { HistoryEntry, SessionSnapshot, TurnSummary } from '../../shared/protocol/session.js';
import { DashboardClient, RunnerClient, type RunnerClientOptions } from '../../shared/client/index.js';
import { closeAllClients } from '../helpers/clients.js';
import { spawnHub, type HubProcess } from '../helpers/hub-process.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { testRedisUrl } from '../helpers/redis.js';

/**
 * Two real hub processes of one cluster: the same fresh PostgreSQL database and the test Redis.
 * Each cluster gets a tenant namespace of its own (its own tokens): Redis pub/sub channels are
 * server-wide, so hubs of other tests on the same Redis hear this cluster's events and vice versa;
 * with distinct tenants neither side has a socket the other's events are for.
 */
export interface TwoHubs {
  a: HubProcess;
  b: HubProcess;
  tokens: { runner: string; dashboard: string; admin: string; operator: string; machine: string };
}

const clusters: { hubs: HubProcess[]; database: TestDatabase }[] = [];
const sdkClients: { close(): unknown; socket: { disconnect(): unknown } }[] = [];

/** Per test: closes the SDK and helper clients, stops both processes (if still alive), drops the database. */
export function twoHubsAfterEach(): void {
  afterEach(async () => {
    for (const client of sdkClients.splice(0)) client.socket.disconnect();
    closeAllClients();
    for (const { hubs, database } of clusters.splice(0)) {
      for (const hub of hubs) if (hub.child.exitCode === null && hub.child.signalCode === null) await hub.stop();
      for (const hub of hubs) await hub.cleanup();
      await database.drop();
    }
  });
}

/**
 * A cluster's fresh database and tenant, its hubs started by `start` (`env` on every one, `own` on
 * that one), each stopped and removed after the test with the database. `redisUrl`: the test Redis
 * unless given.
 */
export async function createCluster(env: Record<string, string> = {}, options: { redisUrl?: string } = {}) {
  const database = await createTestDatabase();
  const cluster = { hubs: [] as HubProcess[], database };
  clusters.push(cluster);
  const tenant = `cluster-${randomBytes(4).toString('hex')}`;
  const tokens = { runner: `runner-${tenant}`, dashboard: `dashboard-${tenant}`, admin: `admin-${tenant}`, operator: `operator-${tenant}`, machine: `machine-${tenant}` };
  const shared = {
    SESSION_HUB_DATABASE_URL: database.url,
    SESSION_HUB_REDIS_URL: options.redisUrl ?? testRedisUrl(),
    SESSION_HUB_TOKENS: Object.entries(tokens).map(([role, token]) => `${role}:${tenant}:${token}`).join(','),
    // one token shared by many busy runners: the per-process rate limit is not under test here
    SESSION_HUB_RATE_LIMIT: '100000',
    SESSION_HUB_RATE_BURST: '100000',
    SESSION_HUB_TOKEN_RATE_LIMIT: '100000',
    SESSION_HUB_TOKEN_RATE_BURST: '100000',
    ...env,
  };
  const start = async (own: Record<string, string> = {}) => {
    const hub = await spawnHub({ env: { ...shared, ...own } });
    cluster.hubs.push(hub);
    return hub;
  };
  return { database, tokens, start };
}

/**
 * Starts A and B together (so they also race to migrate the empty database) with `env` on both, and
 * `onlyA` on A (or what it answers given the database's URL, e.g. A's own route to it).
 */
export async function startTwoHubs(
  env: Record<string, string> = {},
  onlyAOf: Record<string, string> | ((databaseUrl: string) => Promise<Record<string, string>>) = {},
): Promise<TwoHubs> {
  const { database, tokens, start } = await createCluster(env);
  const onlyA = typeof onlyAOf === 'function' ? await onlyAOf(database.url) : onlyAOf;
  const started = await Promise.allSettled([start(onlyA), start()]);
  const failed = started.find((outcome) => outcome.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  const [a, b] = started.map((outcome) => (outcome as PromiseFulfilledResult<HubProcess>).value) as [HubProcess, HubProcess];
  return { a, b, tokens };
}

/** An SDK runner on `hub`, closed after the test. */
export async function runnerOn(hub: HubProcess, token: string, options: Partial<RunnerClientOptions> = {}): Promise<RunnerClient> {
  const client = await RunnerClient.connect({ url: hub.url, token, ...options });
  sdkClients.push(client);
  return client;
}

/** An SDK dashboard on `hub` (websocket only, as behind a balancer without stickiness), closed after the test. */
export async function dashboardOn(hub: HubProcess, token: string, options: { lastSeq?: number } = {}): Promise<DashboardClient> {
  const client = await DashboardClient.connect({ url: hub.url, token, socketOptions: { transports: ['websocket'] }, ...options });
  sdkClients.push(client);
  return client;
}

/** Every raw `update` a client's socket receives (before the SDK drops anything it holds already). */
export function rawUpdates(client: { socket: { on(event: 'update', listener: (event: UpdateEvent) => void): unknown } }): UpdateEvent[] {
  const events: UpdateEvent[] = [];
  client.socket.on('update', (event) => events.push(event));
  return events;
}

async function getJson<T>(hub: HubProcess, path: string, token: string): Promise<T> {
  const response = await fetch(`${hub.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

/** An HTTP call to `hub` with `token`: its status and JSON body. */
export async function callAs(hub: HubProcess, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${hub.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export const getSession = (hub: HubProcess, sid: string, token: string) => getJson<SessionSnapshot>(hub, `/api/sessions/${sid}`, token);
export const getTurns = (hub: HubProcess, sid: string, token: string) => getJson<TurnSummary[]>(hub, `/api/sessions/${sid}/turns`, token);
export const getHistory = async (hub: HubProcess, sid: string, token: string) =>
  (await getJson<{ sid: string; history: HistoryEntry[] }>(hub, `/api/sessions/${sid}/history`, token)).history;

/** One sample of a process's Prometheus text, e.g. `session_hub_sweep_changes_total{kind="runsInterrupted"}`; 0 when absent. */
export async function metric(hub: HubProcess, sample: string): Promise<number> {
  const text = await (await fetch(`${hub.url}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${sample} `));
  return line === undefined ? 0 : Number(line.slice(sample.length + 1));
}

/** The sweeps a process has run (it skips the ticks another process holds the sweep lock for). */
export const sweepsRun = (hub: HubProcess) => metric(hub, 'session_hub_sweep_duration_seconds_count');
/** Runs the sweeps of these (live) processes ended because their runner never came back. */
export async function runEndedBySweepsTotal(hubs: HubProcess[]): Promise<number> {
  let total = 0;
  for (const hub of hubs) total += await metric(hub, 'session_hub_sweep_changes_total{kind="runsInterrupted"}');
  return total;
}

/** Where seqs do not rise by exactly one (the caller checks where they start). */
export function gapsIn(seqs: number[]): string[] {
  const gaps: string[] = [];
  for (let i = 1; i < seqs.length; i += 1) if (seqs[i] !== seqs[i - 1]! + 1) gaps.push(`${seqs[i - 1]} -> ${seqs[i]}`);
  return gaps;
}

/** The `update-session` bodies of one session that set its lifecycle to ended. */
export function lifecycleEnds(events: UpdateEvent[], sid: string): UpdateEvent[] {
  return events.filter((event) => event.body.t === 'update-session' && event.body.sid === sid && event.body.lifecycle?.state === 'ended');
}
