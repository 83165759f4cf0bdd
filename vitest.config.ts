import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Test files at once. Most of a file's time is spent waiting on real processes, sockets and timers,
 * not on the CPU: on a 2-core machine vitest's default (cores - 1 = one file at a time) left the
 * cores mostly idle, and three files at once ran the whole suite in 12 minutes instead of 27, with
 * nothing failing (docs/testing.md). `SESSION_HUB_TEST_WORKERS` sets another number.
 */
const WORKERS = Number(process.env.SESSION_HUB_TEST_WORKERS) || Math.max(3, availableParallelism() + 1);

/**
 * The protocol suites run twice: on the embedded SQLite store and on the PostgreSQL store
 * (test/helpers/test-store.ts gives each test hub a fresh database). The rest runs once.
 */
const PROTOCOL_SUITES = ['socket', 'http', 'lifecycle', 'resume', 'client', 'process', 'webhooks', 'push'].map((dir) => `test/${dir}/**/*.test.ts`);

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 60_000,
    globalSetup: ['test/global-setup.ts', 'test/setup/postgres-server.ts', 'test/setup/redis-server.ts', 'test/setup/agent-clis.ts'],
    setupFiles: ['test/setup/own-home.ts'],
    pool: 'forks',
    maxWorkers: WORKERS,
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'] } },
      { extends: true, test: { name: 'postgres', include: PROTOCOL_SUITES, env: { SESSION_HUB_TEST_STORE: 'postgres' } } },
    ],
  },
});
