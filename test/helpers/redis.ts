import { inject } from 'vitest';

/**
 * The URL of the test run's Redis server (test/setup/redis-server.ts): SESSION_HUB_TEST_REDIS_URL
 * or a throwaway one. Throws, saying what to install, when there is none.
 */
export function testRedisUrl(): string {
  const redis = inject('testRedis');
  if ('error' in redis) throw new Error(redis.error);
  return redis.url;
}
