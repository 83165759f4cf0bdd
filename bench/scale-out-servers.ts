/**
 * The PostgreSQL and Redis servers the scale-out bench runs on: a fresh database per hub target on
 * the admin URL's server (dropped at the end), a Redis the bench's hubs have to themselves, and the
 * CPU of the PostgreSQL backends serving one database (from /proc, by their process titles).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import { withoutPassword } from '../hub/log.js';


async function asAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export interface BenchPostgres {
  /** e.g. "PostgreSQL 15.14, fsync on, synchronous_commit on" */
  describe: string;
  /** A fresh empty database on the server, owned by the admin URL's role. */
  createDatabase(): Promise<{ name: string; url: string }>;
  /** Drops every database createDatabase made (closing connections left on them). */
  dropAll(): Promise<void>;
}

const POSTGRES_HELP = `start one (Debian: apt-get install postgresql && pg_ctlcluster 15 main start; then, as postgres: createuser hub --createdb --pwprompt) or set BENCH_POSTGRES_URL to the URL of a role that may CREATE DATABASE`;

/** Connects once to check the server and read its durability settings; exits the process with help when it cannot. */
export async function openBenchPostgres(adminUrl: string): Promise<BenchPostgres> {
  let describe: string;
  try {
    describe = await asAdmin(adminUrl, async (client) => {
      const rows = (await client.query<{ name: string; setting: string }>(`SELECT name, setting FROM pg_settings WHERE name IN ('server_version', 'fsync', 'synchronous_commit') ORDER BY name`)).rows;
      const get = (name: string) => rows.find((r) => r.name === name)?.setting ?? '?';
      return `PostgreSQL ${get('server_version')}, fsync ${get('fsync')}, synchronous_commit ${get('synchronous_commit')}`;
    });
  } catch (error) {
    fail(`cannot reach PostgreSQL at ${withoutPassword(adminUrl)} (${(error as Error).message}): ${POSTGRES_HELP}`);
  }
  const created: string[] = [];
  return {
    describe,
    async createDatabase() {
      const name = `session_hub_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
      await asAdmin(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
      created.push(name);
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      return { name, url: url.toString() };
    },
    async dropAll() {
      for (const name of created.splice(0)) await asAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

export interface BenchRedis {
  url: string;
  /** Stops the throwaway server, if the bench started one. */
  stop(): Promise<void>;
}

const REDIS_HELP = `start one (Debian: apt-get install redis-server && redis-server --daemonize yes) or set BENCH_REDIS_URL`;

/**
 * Redis pub/sub channels are server-wide, and every hub uses the `session-hub` prefix: hubs of other
 * clusters on the same Redis (another engineer's test run) would receive the bench's committed
 * events and the bench's hubs theirs, each mixing the other's seqs into its sequencer. So an explicit
 * BENCH_REDIS_URL must have no hub subscribed on it; the default one, when it has, is replaced by a
 * throwaway redis-server on a free loopback port.
 */
export async function openBenchRedis(explicitUrl: string | undefined, say: (line: string) => void): Promise<BenchRedis> {
  const url = explicitUrl ?? 'redis://127.0.0.1:6379';
  let busy: number;
  try {
    busy = await hubChannels(url);
  } catch (error) {
    fail(`cannot reach Redis at ${withoutPassword(url)} (${(error as Error).message}): ${REDIS_HELP}`);
  }
  if (busy === 0) return { url, stop: async () => undefined };
  const why = `${busy} session-hub channel(s) are subscribed on ${withoutPassword(url)}: other hub processes use that Redis, and their broadcasts would mix with the bench's`;
  if (explicitUrl) fail(`${why}; point BENCH_REDIS_URL at a Redis of its own, or unset it to let the bench start a throwaway one`);
  say(`${why}; starting a throwaway redis-server instead`);
  return startThrowawayRedis();
}

async function hubChannels(url: string): Promise<number> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 3_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  let cause: Error | undefined;
  client.on('error', (error: Error) => (cause = error)); // connect() itself only says "Connection is closed."
  try {
    await client.connect();
    return ((await client.pubsub('CHANNELS', 'session-hub*')) as string[]).length;
  } catch (error) {
    throw cause ?? error;
  } finally {
    client.disconnect();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function startThrowawayRedis(): Promise<BenchRedis> {
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const error = await Promise.race([spawnError, new Promise<undefined>((r) => setTimeout(r, 100))]);
    if (error) fail(`cannot start redis-server (${error.message}): ${REDIS_HELP}`);
    if ((await hubChannels(url).catch(() => -1)) === 0) break;
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      fail(`redis-server did not answer on port ${port}: ${REDIS_HELP}`);
    }
  }
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * CPU seconds used so far by each PostgreSQL backend connected to `database`, by pid: backends set
 * their process title to `postgres: … <user> <database> <client> <state>`. Empty where /proc is not
 * readable (then the figure is left out).
 */
export function postgresBackendCpu(database: string): Map<number, number> {
  const out = new Map<number, number>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return out;
  }
  for (const pid of pids) {
    try {
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!title.startsWith('postgres:') || !title.split(' ').includes(database)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(pid), (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // the process ended meanwhile, or is not ours to read
    }
  }
  return out;
}

/** CPU seconds the backends used between two postgresBackendCpu snapshots (new backends count whole). */
export function backendCpuSince(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, cpu] of after) total += cpu - (before.get(pid) ?? 0);
  return total;
}

function fail(message: string): never {
  process.stderr.write(`bench:scale-out: ${message}\n`);
  process.exit(2);
}
