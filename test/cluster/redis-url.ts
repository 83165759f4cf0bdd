/**
 * The Redis the cluster tests share. One place to switch to test/helpers/redis.ts (a throwaway
 * server from the global setup) once that is wired into vitest.config.ts.
 */
export function clusterTestRedisUrl(): string {
  return process.env.SESSION_HUB_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
}
