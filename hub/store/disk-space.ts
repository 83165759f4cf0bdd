import { statfsSync } from 'node:fs';

/**
 * Why the SQLite data directory cannot be counted on for writes, or undefined (issue 33.6: readiness
 * answered 200 on a full disk, as an empty write transaction needs no space). One statfs call: what
 * an unprivileged writer may still use (`bavail`), against `minFreeBytes`.
 */
export function diskSpaceProblem(dataDir: string, minFreeBytes: number): string | undefined {
  let free: number;
  try {
    const stats = statfsSync(dataDir);
    free = stats.bavail * stats.bsize;
  } catch (error) {
    return `the data directory ${dataDir} cannot be checked: ${(error as Error).message}`;
  }
  if (free >= minFreeBytes) return undefined;
  return `the data directory ${dataDir} has ${free} bytes free, under the ${minFreeBytes} required (SESSION_HUB_READY_MIN_FREE_BYTES): writes may fail`;
}
