/**
 * A cross-process lock on the spool: a lock file created with O_EXCL, holding the holder's pid.
 * It is broken when that process is gone (killed while holding it: kill -9, Ctrl-C, the agent's
 * hook timeout) and, whatever the pid says, once older than STALE_MS (hook processes are short).
 */
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';

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

/** False only when no process has the pid (ESRCH); EPERM means it exists under another user. */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

function holderIsGone(path: string): boolean {
  const pid = Number(readFileSync(path, 'utf8'));
  // an empty file is a holder between create and write: alive, or caught by the age rule
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && !processExists(pid);
}

function breakIfStale(path: string): void {
  try {
    if (Date.now() - statSync(path).mtimeMs > STALE_MS || holderIsGone(path)) rmSync(path, { force: true });
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
