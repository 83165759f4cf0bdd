import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { freePort } from './free-port.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * The admin URL of the PostgreSQL server tests create databases on, or why there is none; `run`
     * names this run's databases (test/helpers/postgres.ts), which the run drops at its end.
     */
    testPostgres: { url: string; run: string } | { error: string };
  }
}

/**
 * The PostgreSQL server of the test run: SESSION_HUB_TEST_POSTGRES_URL (an admin URL: it creates
 * and drops databases) when set, as in CI; otherwise a throwaway server started here and removed
 * after the run. A machine without PostgreSQL still runs every other test: only tests that ask
 * for a database fail, with the reason.
 */
export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  const fromEnv = process.env.SESSION_HUB_TEST_POSTGRES_URL;
  const run = randomBytes(4).toString('hex');
  if (fromEnv) {
    project.provide('testPostgres', { url: fromEnv, run });
    // a test that failed before its drop() leaves its database on a developer's server: gone with the run
    return () => dropRunDatabases(fromEnv, run);
  }
  try {
    const server = await startThrowawayPostgres();
    project.provide('testPostgres', { url: server.url, run });
    return server.stop;
  } catch (error) {
    project.provide('testPostgres', { error: `no test PostgreSQL server: ${(error as Error).message}` });
    return undefined;
  }
}

/** Drops every database this run created (its name carries the run's id) and still left. */
async function dropRunDatabases(adminUrl: string, run: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${testDatabasePrefix(run)}%`]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** The name every database of a run starts with. */
export const testDatabasePrefix = (run: string) => `session_hub_test_${run}_`;

/**
 * A throwaway PostgreSQL server of its own (initdb + pg_ctl, as the postgres user when run as
 * root, fsync off): the run's server when none is given, and for tests that must stop and start a
 * server (restart under load) without touching the one the other tests share.
 */
export async function startThrowawayPostgres(): Promise<{ url: string; stop: () => void; stopServer: () => void; startServer: () => void }> {
  const bin = postgresBinDir();
  // initdb and postgres refuse to run as root: run them as the postgres user, in a dir it owns
  const asRoot = process.getuid?.() === 0;
  const user = asRoot ? postgresUser() : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'session-hub-pg-'));
  const data = join(dir, 'data');
  if (user) chownSync(dir, user.uid, user.gid);
  const run = (command: string, args: string[]) => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]] : [join(bin, command), args];
    execFileSync(file, argv, { stdio: 'pipe' });
  };
  const port = await freePort();
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  try {
    run('initdb', ['-D', data, '-U', 'hub', '--auth=trust', '--no-sync', '--encoding=UTF8', '--locale=C']);
    // a throwaway server: durability settings off for speed
    run('pg_ctl', ['start', '-D', data, '-w', '-t', '60', '-l', join(dir, 'server.log'), '-o', options]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`starting PostgreSQL from ${bin} failed${stderr ? `: ${stderr}` : ''}`);
  }
  return {
    url: `postgres://hub@127.0.0.1:${port}/postgres`,
    // a fast shutdown (as a restart or a failover does): open connections are terminated
    stopServer: () => run('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w']),
    startServer: () => run('pg_ctl', ['start', '-D', data, '-w', '-t', '60', '-l', join(dir, 'server.log'), '-o', options]),
    stop: () => {
      try {
        run('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** The postgres system user (Debian's postgresql package creates it). */
function postgresUser(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined) throw new Error('running as root needs the postgres user; install postgresql: apt-get install postgresql');
  return { uid: Number(uid), gid: Number(gid) };
}

/** The newest /usr/lib/postgresql/<version>/bin (Debian's layout). */
function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (!versions[0]) {
    throw new Error('PostgreSQL server binaries not found in /usr/lib/postgresql/*/bin; install postgresql: apt-get install postgresql (or set SESSION_HUB_TEST_POSTGRES_URL)');
  }
  return join(root, versions[0], 'bin');
}
