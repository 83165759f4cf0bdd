/**
 * A cross-process lock: a lock file holding the holder's pid and a token of its own, put in place
 * whole (written to a temporary file, then hard-linked to the lock's name: never an empty lock file,
 * even on a full disk). It is broken when its holder is gone (killed while holding it: kill -9,
 * Ctrl-C, the agent's hook timeout) and, for the spool lock, once it has not been refreshed for
 * STALE_MS: a live holder refreshes it every REFRESH_MS, so only a frozen one (a laptop's sleep,
 * SIGSTOP, a clock step) loses it. A holder that lost its lock finds out before its next write
 * (`owns()`: the token in the file is no longer its own) and writes nothing more. The drainer's
 * lock has no age rule: a drainer lives long.
 */
import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { removeFileIfPresent } from './remove-file.js';

const STALE_MS = 10_000;
const REFRESH_MS = 2_000;
const POLL_MS = 15;

export interface HeldLock {
  /** True while the lock file still holds this holder's token. */
  owns(): boolean;
  /** Removes the lock file if it is still this holder's; stops refreshing it. */
  release(): void;
}

const newToken = () => `${process.pid}.${Date.now().toString(36)}.${Math.random().toString(36).slice(2)}`;

function readLock(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Link errors of file systems without hard links: the lock falls back to an exclusive create. */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/** Puts `content` in place as `path` whole, or not at all; false when `path` exists. */
function tryCreate(path: string, content: string): boolean {
  const tmp = `${path}.${content}.tmp`;
  try {
    writeFileSync(tmp, content, { flag: 'wx' });
    linkSync(tmp, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') return false;
    if (!NO_LINKS.has(code)) throw error;
    return createExclusive(path, content);
  } finally {
    try {
      removeFileIfPresent(tmp);
    } catch {
      // a leftover temporary file names its token: harmless
    }
  }
}

function createExclusive(path: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, content);
  } catch (error) {
    closeSync(fd);
    removeFileIfPresent(path);
    throw error;
  }
  closeSync(fd);
  return true;
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

/** The pid a lock's content names: "<pid>.<token>" (or a bare pid, from earlier versions). */
export function lockPid(content: string): number {
  return Number(content.split('.')[0]);
}

/** The pid in a lock file, when its process is alive; undefined when free or held by a gone process. */
export function liveHolder(path: string): number | undefined {
  const content = readLock(path);
  if (content === undefined) return undefined;
  const pid = lockPid(content);
  return Number.isInteger(pid) && pid > 0 && processExists(pid) ? pid : undefined;
}

function holderIsGone(content: string): boolean {
  const pid = lockPid(content);
  // an empty file (left by an earlier version) is caught by the age rule
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && !processExists(pid);
}

/**
 * Breaks the lock when its holder is gone or it went unrefreshed past staleMs. Two processes may
 * decide so at once: each moves the file aside under a name of its own and removes it only if it
 * is the lock it judged; a fresh lock moved aside by mistake is put back (unless a third process
 * took the name meanwhile: then that fresh holder's `owns()` turns false and it writes nothing more).
 */
function breakIfStale(path: string, staleMs: number): void {
  const seen = readLock(path);
  if (seen === undefined) return;
  let stale: boolean;
  try {
    stale = Date.now() - statSync(path).mtimeMs > staleMs || holderIsGone(seen);
  } catch {
    return; // gone already
  }
  if (!stale) return;
  const aside = `${path}.${newToken()}.broken`;
  try {
    renameSync(path, aside);
  } catch {
    return; // another process broke it first
  }
  try {
    if (readLock(aside) !== seen) linkSync(aside, path);
  } catch {
    // someone holds a new lock: the one moved aside by mistake lost it, and knows before it writes
  }
  removeFileIfPresent(aside);
}

/** Takes the lock, waiting up to `waitMs`; null when it stayed taken. Throws when the lock file cannot be written (a full disk). */
export async function acquireLock(path: string, waitMs: number, staleMs = STALE_MS): Promise<HeldLock | null> {
  const deadline = Date.now() + waitMs;
  const token = newToken();
  for (;;) {
    if (tryCreate(path, token)) return held(path, token, staleMs);
    breakIfStale(path, staleMs);
    if (Date.now() >= deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function held(path: string, token: string, staleMs: number): HeldLock {
  const owns = () => readLock(path) === token;
  // a live holder keeps its lock fresh, however long its work takes (a slow hub, a big spool)
  const refresh = Number.isFinite(staleMs)
    ? setInterval(() => {
        try {
          if (owns()) utimesSync(path, new Date(), new Date());
        } catch {
          // lost or removed: owns() says so before the next write
        }
      }, REFRESH_MS).unref()
    : undefined;
  return {
    owns,
    release() {
      clearInterval(refresh);
      try {
        if (owns()) removeFileIfPresent(path);
      } catch {
        // nothing to release
      }
    },
  };
}
