import { defineConfig } from 'vitest/config';

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
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'] } },
      { extends: true, test: { name: 'postgres', include: PROTOCOL_SUITES, env: { SESSION_HUB_TEST_STORE: 'postgres' } } },
    ],
  },
});
