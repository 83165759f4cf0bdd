import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

export interface TestDatabase {
  /** postgres:// URL of a fresh, empty database of its own. */
  url: string;
  /** Drops the database, closing whatever connections are still open on it. */
  drop(): Promise<void>;
}

/** The admin URL of the test run's PostgreSQL server (test/setup/postgres-server.ts). */
export function testPostgresAdminUrl(): string {
  const postgres = inject('testPostgres');
  if ('error' in postgres) throw new Error(postgres.error);
  return postgres.url;
}

/** A fresh uniquely named database on the test server; drop() it after the test. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = testPostgresAdminUrl();
  const name = `session_hub_test_${process.pid}_${randomBytes(4).toString('hex')}`;
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
