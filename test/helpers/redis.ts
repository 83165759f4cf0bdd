import { inject } from 'vitest';
import { freePort } from '../setup/free-port.js';
import { startRedis, stop } from '../setup/redis-server.js';

/**
 * The URL of the test run's Redis server (test/setup/redis-server.ts): SESSION_HUB_TEST_REDIS_URL
 * or a throwaway one. Throws, saying what to install, when there is none.
 */
export function testRedisUrl(): string {
  const redis = inject('testRedis');
  if ('error' in redis) throw new Error(redis.error);
  return redis.url;
}

/**
 * A Redis server of one test's own (a `redis-server` child): pub/sub channels are server-wide, so a
 * test that must know which hub processes listen cannot share the run's server with other files.
 */
export async function privateRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = await startRedis(port);
  return { url: `redis://127.0.0.1:${port}`, stop: () => stop(child) };
}
