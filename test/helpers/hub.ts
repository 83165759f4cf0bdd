import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../hub/clock.js';
import { loadConfig, type HubConfig } from '../../hub/config.js';
import { createLogger } from '../../hub/log.js';
import { startHub, type RunningHub } from '../../hub/main.js';
import { TEST_TOKEN_SPEC, TEST_TOKENS } from './tokens.js';

export interface TestHub extends RunningHub {
  tokens: typeof TEST_TOKENS;
  dataDir: string;
}

/**
 * The real hub in this process on 127.0.0.1:0 with a fresh SQLite file in a temp dir, the test
 * tokens, and a quiet log. `close()` stops it and removes the directory.
 */
export async function startTestHub(options: { config?: Partial<Record<keyof HubConfig, unknown>>; clock?: Clock; dataDir?: string } = {}): Promise<TestHub> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'session-hub-test-'));
  const config = loadConfig({}, { host: '127.0.0.1', port: 0, dataDir, tokens: TEST_TOKEN_SPEC, logLevel: process.env.TEST_LOG_LEVEL ?? 'silent', ...options.config });
  const hub = await startHub(config, { log: createLogger(config.logLevel), clock: options.clock });
  const close = async () => {
    await hub.close();
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  return { ...hub, close, tokens: TEST_TOKENS, dataDir };
}
