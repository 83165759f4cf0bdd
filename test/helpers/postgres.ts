import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { testDatabasePrefix } from '../setup/postgres-server.js';

export interface TestDatabase {
  /** postgres:// URL of a fresh, empty database of its own. */
  url: string;
  /** Drops the database, closing whatever connections are still open on it. */
  drop(): Promise<void>;
}

function testPostgres(): { url: string; run: string } {
  const postgres = inject('testPostgres');
  if ('error' in postgres) throw new Error(postgres.error);
  return postgres;
}

/** The admin URL of the test run's PostgreSQL server (test/setup/postgres-server.ts). */
export function testPostgresAdminUrl(): string {
  return testPostgres().url;
}

/** A fresh uniquely named database on the test server; drop() it after the test (the run drops what is left). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const { url: adminUrl, run } = testPostgres();
  const name = `${testDatabasePrefix(run)}${process.pid}_${randomBytes(4).toString('hex')}`;
  await asAdmin(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => asAdmin(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function asAdmin(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
