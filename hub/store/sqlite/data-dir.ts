import { closeSync, mkdirSync, openSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The data directory cannot be used: the message names it and what is wrong. */
export class DataDirUnusable extends Error {
  constructor(readonly dataDir: string, problem: string) {
    super(`cannot use the data directory ${dataDir} (SESSION_HUB_DATA or --data): ${problem}. Choose a directory this user may create and write, or fix it.`);
    this.name = 'DataDirUnusable';
  }
}

/**
 * Makes sure the data directory is a directory this process can write, creating it (and missing
 * parents) one level at a time, before anything else opens it. Node's own recursive mkdir never
 * returns on some paths (`/proc/x`: it retries ENOENT for ever, at 100 % CPU, deaf to signals).
 */
export function prepareDataDir(dataDir: string): void {
  const absolute = resolve(dataDir);
  const missing: string[] = [];
  let existing = absolute;
  for (;;) {
    const kind = kindOf(existing);
    if (kind === 'directory') break;
    if (kind !== 'missing') throw new DataDirUnusable(dataDir, `${existing} is ${kind}, not a directory`);
    missing.unshift(existing);
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  for (const dir of missing) {
    try {
      mkdirSync(dir);
    } catch (error) {
      const { code } = error as NodeJS.ErrnoException;
      if (code === 'EEXIST' && kindOf(dir) === 'directory') continue;
      throw new DataDirUnusable(dataDir, `cannot create ${dir} (${code ?? (error as Error).message})`);
    }
  }
  // writing a file is the one test that holds for root, ACLs and read-only mounts alike
  const probe = join(absolute, `.write-check-${process.pid}`);
  try {
    closeSync(openSync(probe, 'wx'));
    unlinkSync(probe);
  } catch (error) {
    throw new DataDirUnusable(dataDir, `cannot write in it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

function kindOf(path: string): 'directory' | 'missing' | 'a file' | 'not a file or directory' {
  try {
    const stat = statSync(path);
    return stat.isDirectory() ? 'directory' : stat.isFile() ? 'a file' : 'not a file or directory';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    // ENOTDIR: a parent is a file, found as the walk goes up; EACCES: a parent we may not look into
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return 'missing';
    throw new DataDirUnusable(path, `cannot look at ${path} (${(error as NodeJS.ErrnoException).code})`);
  }
}
