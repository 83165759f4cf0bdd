import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * SQLite serves one hub process: a second process on the same data directory would start its own
 * boot grace over the first one's runs and keep its own caches. The lock is a file holding the
 * holder's pid; one whose process is gone (kill -9, a crash) is taken over.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'hub.lock');
  const holder = readHolder(file);
  if (holder !== undefined && holder !== process.pid && isAlive(holder)) {
    throw new Error(
      `another hub process (pid ${holder}) is serving ${dataDir}: SQLite serves one process. ` +
        'Stop it first, give this one its own SESSION_HUB_DATA, or run several processes on PostgreSQL (SESSION_HUB_DATABASE_URL; README: Several hub processes).',
    );
  }
  writeFileSync(file, `${process.pid}\n`);
  return {
    release() {
      if (readHolder(file) === process.pid) rmSync(file, { force: true });
    },
  };
}

function readHolder(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
