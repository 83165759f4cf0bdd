/**
 * A cross-process lock on the spool: a lock file created with O_EXCL. Hook processes are short,
 * so a lock older than STALE_MS belongs to a process that died and is broken.
 */
import { closeSync, openSync, rmSync, statSync, writeSync } from 'node:fs';

const STALE_MS = 10_000;
const POLL_MS = 15;

function tryCreate(path: string): boolean {
  try {
    const fd = openSync(path, 'wx');
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function breakIfStale(path: string): void {
  try {
    if (Date.now() - statSync(path).mtimeMs > STALE_MS) rmSync(path, { force: true });
  } catch {
    // gone already
  }
}

/** Takes the lock, waiting up to `waitMs`; returns a release function, or null when it stayed taken. */
export async function acquireLock(path: string, waitMs: number): Promise<(() => void) | null> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (tryCreate(path)) return () => rmSync(path, { force: true });
    breakIfStale(path);
    if (Date.now() >= deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
