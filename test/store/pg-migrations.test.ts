/**
 * The PostgreSQL schema is the SQLite schema: the same tables, columns, NOT NULLs, index names and
 * partial indexes after all migrations, so the store modules' queries mean the same on both engines.
 * A migration added to one engine only fails here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgStore } from '../../hub/store/postgres/pg-store.js';
import { PG_MIGRATIONS } from '../../hub/store/postgres/migrations/index.js';
import { MIGRATIONS } from '../../hub/store/sqlite/migrations/index.js';
import { SqliteStore } from '../../hub/store/sqlite/sqlite-store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';

interface Column {
  table: string;
  column: string;
  notNull: boolean;
}

let dir: string;
let sqlite: SqliteStore;
let database: TestDatabase;
let postgres: PgStore;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'session-hub-schema-'));
  sqlite = SqliteStore.open(join(dir, 'hub.db'));
  database = await createTestDatabase();
  postgres = await PgStore.open(database.url);
});

afterAll(async () => {
  await sqlite?.close();
  await postgres?.close();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function sqliteColumns(): Promise<Column[]> {
  const rows = await sqlite.all<{ table: string; column: string; notNull: number; pk: number }>(
    `SELECT m.name AS "table", c.name AS "column", c."notnull" AS "notNull", c.pk AS pk
     FROM sqlite_master m, pragma_table_info(m.name) c WHERE m.type = 'table' ORDER BY 1, 2`,
  );
  // a PRIMARY KEY column is NOT NULL in PostgreSQL whether or not the DDL says so
  return rows.map((row) => ({ table: row.table, column: row.column, notNull: row.notNull === 1 || row.pk > 0 }));
}

async function postgresColumns(): Promise<Column[]> {
  const rows = await postgres.all<{ table: string; column: string; nullable: string }>(
    `SELECT table_name AS "table", column_name AS "column", is_nullable AS nullable
     FROM information_schema.columns WHERE table_schema = current_schema() AND table_name <> 'schema_migrations'
     ORDER BY 1, 2`,
  );
  return rows
    .filter((row) => !(row.table === 'turns' && row.column === 'created_order')) // PostgreSQL's rowid
    .map((row) => ({ table: row.table, column: row.column, notNull: row.nullable === 'NO' }));
}

describe('PostgreSQL migrations', () => {
  it('has as many versions as the SQLite migrations', async () => {
    expect(PG_MIGRATIONS.length).toBe(MIGRATIONS.length);
    expect(await postgres.schemaVersion()).toBe(await sqlite.schemaVersion());
  });

  it('creates the same tables and columns, with the same NOT NULLs, as SQLite', async () => {
    const expected = await sqliteColumns();
    expect(expected.length).toBeGreaterThan(50);
    expect(await postgresColumns()).toEqual(expected);
  });

  it('creates the same named indexes, partial where SQLite’s are, unique where SQLite’s are', async () => {
    const sqliteIndexes = await sqlite.all<{ name: string; sql: string }>(
      `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name`,
    );
    const pgIndexes = await postgres.all<{ name: string; sql: string }>(
      `SELECT indexname AS name, indexdef AS sql FROM pg_indexes
       WHERE schemaname = current_schema() AND indexname NOT LIKE '%\\_pkey' AND indexname NOT LIKE '%\\_key' ORDER BY indexname`,
    );
    const shape = (index: { name: string; sql: string }) => ({
      name: index.name,
      partial: / WHERE /i.test(index.sql),
      unique: /^CREATE UNIQUE/i.test(index.sql),
    });
    expect(sqliteIndexes.length).toBeGreaterThan(10);
    expect(pgIndexes.map(shape)).toEqual(sqliteIndexes.map(shape));
  });

  it('stores every time, seq and version as BIGINT and every 0/1 flag as INTEGER (no BOOLEAN)', async () => {
    const types = await postgres.all<{ table: string; column: string; type: string }>(
      `SELECT table_name AS "table", column_name AS "column", data_type AS type
       FROM information_schema.columns WHERE table_schema = current_schema() AND table_name <> 'schema_migrations'`,
    );
    const timeLike = types.filter((c) => /(^|_)(at|since|seq|version|through)$/.test(c.column));
    expect(timeLike.length).toBeGreaterThan(20);
    expect(timeLike.filter((c) => c.type !== 'bigint')).toEqual([]);
    expect(types.filter((c) => c.type === 'boolean')).toEqual([]);
    const flags = ['active', 'thinking', 'rejected', 'truncated', 'detached', 'resume_retried', 'prompt_truncated'];
    expect(types.filter((c) => flags.includes(c.column)).map((c) => c.type)).toEqual(flags.map(() => 'integer'));
  });
});
