import { afterEach } from 'vitest';

/**
 * What a test started and must stop (a model server, a project, a process): pushed as it starts,
 * undone after each test, the last started first.
 */
export function cleanUpsAfterEach(): (() => unknown)[] {
  const cleanUps: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanUp of cleanUps.splice(0).reverse()) await cleanUp();
  });
  return cleanUps;
}
