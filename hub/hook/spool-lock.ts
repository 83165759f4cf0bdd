/**
 * A cross-process lock: a lock file created with O_EXCL, holding the holder's pid. It is broken
 * when that process is gone (killed while holding it: kill -9, Ctrl-C, the agent's hook timeout)
 * and, for the spool lock, whatever the pid says, once older than STALE_MS (its holders are short:
 * a request is bounded well under it). The drainer's lock has no age rule: a drainer lives long.
 */
import { closeSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { removeFileIfPresent } from './remove-file.js';

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

/** A zombie (Linux: state Z in /proc/<pid>/stat): killed, not yet reaped (a container whose pid 1 does not reap). */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false; // no /proc: kill(pid, 0) is all we know
  }
}

/** False when no process has the pid (ESRCH) or it is a zombie; EPERM means it exists under another user. */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !isZombie(pid);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** The pid in a lock file, when its process is alive; undefined when free or held by a gone process. */
export function liveHolder(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8'));
    return Number.isInteger(pid) && pid > 0 && processExists(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

function holderIsGone(path: string): boolean {
  const pid = Number(readFileSync(path, 'utf8'));
  // an empty file is a holder between create and write: alive, or caught by the age rule
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && !processExists(pid);
}

function breakIfStale(path: string, staleMs: number): void {
  try {
    if (Date.now() - statSync(path).mtimeMs > staleMs || holderIsGone(path)) removeFileIfPresent(path);
  } catch {
    // gone already
  }
}

/** Takes the lock, waiting up to `waitMs`; returns a release function, or null when it stayed taken. */
export async function acquireLock(path: string, waitMs: number, staleMs = STALE_MS): Promise<(() => void) | null> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (tryCreate(path)) return () => removeFileIfPresent(path);
    breakIfStale(path, staleMs);
    if (Date.now() >= deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
