import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { ManualClock, type Clock } from '../../hub/clock.js';
import { loadConfig, type HubConfig } from '../../hub/config.js';
import { createLogger } from '../../hub/log.js';
import { startHub, type RunningHub } from '../../hub/main.js';
import { closeAllClients, connectRunner, startSession, type RunnerSocket } from './clients.js';
import { databaseUrlFor, releaseDatabaseOf } from './test-store.js';
import { TEST_TOKEN_SPEC, TEST_TOKENS } from './tokens.js';

export interface TestHub extends RunningHub {
  tokens: typeof TEST_TOKENS;
  dataDir: string;
}

/**
 * The real hub in this process on 127.0.0.1:0 with a fresh SQLite file in a temp dir (or a fresh
 * PostgreSQL database: test-store.ts), the test tokens, and a quiet log. `close()` stops it and
 * removes the directory and its database.
 */
export async function startTestHub(options: { config?: Partial<Record<keyof HubConfig, unknown>>; clock?: Clock; dataDir?: string } = {}): Promise<TestHub> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'session-hub-test-'));
  const databaseUrl = await databaseUrlFor(dataDir);
  const config = loadConfig(
    {},
    { host: '127.0.0.1', port: 0, dataDir, databaseUrl, tokens: TEST_TOKEN_SPEC, logLevel: process.env.TEST_LOG_LEVEL ?? 'silent', ...options.config },
  );
  const hub = await startHub(config, { log: createLogger(config.logLevel), clock: options.clock });
  const close = async () => {
    await hub.close();
    if (!options.dataDir) {
      rmSync(dataDir, { recursive: true, force: true });
      await releaseDatabaseOf(dataDir);
    }
  };
  const testHub = { ...hub, close, tokens: TEST_TOKENS, dataDir };
  started.push(testHub);
  return testHub;
}

type TestHubOptions = NonNullable<Parameters<typeof startTestHub>[0]>;

/** Every test hub started since the last `closeTestHubsAfterEach` ran. */
const started: TestHub[] = [];

/** Per test: afterwards every client the helpers opened is closed, then every test hub started during it. */
export function closeTestHubsAfterEach(): void {
  afterEach(async () => {
    closeAllClients();
    for (const hub of started.splice(0)) await hub.close();
  });
}

/**
 * Per test: a fresh hub (options made anew for each test, e.g. a new ManualClock) handed to
 * `setUp`; closed afterwards with every client.
 */
export function useTestHub(setUp: (hub: TestHub) => unknown, options: () => TestHubOptions = () => ({})): void {
  beforeEach(async () => {
    await setUp(await startTestHub(options()));
  });
  closeTestHubsAfterEach();
}

/** What `useHubWithRunner` hands each test; its fields are replaced before every test. */
export interface HubWithRunner {
  hub: TestHub;
  clock: ManualClock;
  runner: RunnerSocket;
  /** The session started on `runner` (set only with `withSession`). */
  sid: string;
}

/**
 * Per test: a fresh hub on a ManualClock at `startAt` (default 1_700_000_000_000), a runner
 * connected to it and, with `withSession`, a session started on that runner. Many suites open
 * this way; this keeps that setup in one place. The returned object is filled anew before each
 * test, so read its fields when a test runs (`t.hub`, `t.runner`), never copy them at module level.
 */
export function useHubWithRunner(options: { startAt?: number; withSession?: boolean } = {}): HubWithRunner {
  const t = {} as HubWithRunner;
  useTestHub(async (started) => {
    t.hub = started;
    t.runner = await connectRunner(started.url, started.tokens.runner);
    if (options.withSession) t.sid = (await startSession(t.runner)).sid;
  }, () => ({ clock: (t.clock = new ManualClock(options.startAt ?? 1_700_000_000_000)) }));
  return t;
}
