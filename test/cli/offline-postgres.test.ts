/**
 * The offline CLI (doctor, repair, token) on PostgreSQL (SESSION_HUB_DATABASE_URL): the real
 * compiled CLI against real databases of the test server.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import { loadConfig } from '../../hub/config.js';
import { endSession } from '../../hub/lifecycle/session-events.js';
import { startSession } from '../../hub/lifecycle/session-start.js';
import { createLogger } from '../../hub/log.js';
import type { HubDeps } from '../../hub/services/deps.js';
import { PgStore } from '../../hub/store/postgres/pg-store.js';
import { runnerActor } from '../helpers/services.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';

let databases: TestDatabase[] = [];
afterEach(async () => {
  for (const database of databases) await database.drop();
  databases = [];
});

async function database(): Promise<TestDatabase> {
  const created = await createTestDatabase();
  databases.push(created);
  return created;
}

/** The same URL with its password (a real one, or any when the server trusts) moved to `?password=`. */
function withPasswordInQuery(url: string, fallback: string): { url: string; password: string } {
  const parsed = new URL(url);
  const password = parsed.password === '' ? fallback : decodeURIComponent(parsed.password);
  parsed.password = '';
  parsed.searchParams.set('password', password);
  return { url: parsed.toString(), password };
}

async function tableCount(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`)).rows[0]!.n;
  } finally {
    await client.end();
  }
}

describe('offline CLI on PostgreSQL', () => {
  it('never prints a password given as ?password= in the URL, failing or not', async () => {
    const unreachable = await runCli(['doctor'], { env: { SESSION_HUB_DATABASE_URL: 'postgres://hub@127.0.0.1:1/session_hub?password=s3cret-in-query' } });
    expect(unreachable.code).not.toBe(0);
    expect(unreachable.stderr).toContain('127.0.0.1:1');
    expect(unreachable.stdout + unreachable.stderr).not.toContain('s3cret-in-query');

    const db = await database();
    await (await PgStore.open(db.url)).close();
    const { url, password } = withPasswordInQuery(db.url, 'trusted-anyway-s3cret');
    for (const args of [['doctor'], ['doctor', '--json']]) {
      const result = await runCli(args, { env: { SESSION_HUB_DATABASE_URL: url } });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(new URL(db.url).pathname);
      expect(result.stdout).not.toContain(`password=${password}`);
      expect(result.stdout).toContain('password=***');
    }
  });

  it('refuses a database without the hub schema (a wrong database name) instead of creating it and reporting it clean', async () => {
    const db = await database();
    for (const args of [['doctor'], ['token', 'list'], ['repair', '--all', '--dry-run']]) {
      const result = await runCli(args, { env: { SESSION_HUB_DATABASE_URL: db.url } });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('no hub database');
      expect(result.stdout).toBe('');
    }
    expect(await tableCount(db.url)).toBe(0);
  });

  it('doctor reads metadata holding \\u0000 (which jsonb refuses) like any other', async () => {
    const db = await database();
    const store = await PgStore.open(db.url);
    try {
      const deps: HubDeps = {
        store,
        hubId: 'test-hub',
        clock: new ManualClock(Date.now()),
        config: loadConfig({}, { logLevel: 'silent' }),
        log: createLogger('silent'),
        publisher: { publish: () => {} },
      };
      const actor = runnerActor();
      const { session } = await startSession(deps, actor, { tag: 't', flavor: 'claude', source: 'startup', metadata: { path: '/p', note: 'a NUL: \u0000' } });
      await endSession(deps, actor, { sid: session.sid });
    } finally {
      await store.close();
    }
    const result = await runCli(['doctor'], { env: { SESSION_HUB_DATABASE_URL: db.url } });
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('1 session(s)');
    expect(result.code).toBe(0);
  });

  it('every offline command says in its --help that SESSION_HUB_DATABASE_URL replaces --data', async () => {
    for (const command of ['doctor', 'repair', 'token']) {
      const help = await runCli([command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('SESSION_HUB_DATABASE_URL');
    }
  });
});
