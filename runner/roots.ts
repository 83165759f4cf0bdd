/**
 * The runner's roots: the only directories under which it starts agents. Every path is resolved
 * (symlinks included) before it is compared, so a link inside a root that points outside is outside.
 */
import { realpathSync, statSync } from 'node:fs';
import { resolve, sep } from 'node:path';

/** Resolves each root; throws naming the first one that does not exist or is not a directory. */
export function resolveRoots(roots: readonly string[], cwd = process.cwd()): string[] {
  return [...new Set(roots.map((root) => {
    const absolute = resolve(cwd, root);
    let real: string;
    try {
      real = realpathSync(absolute);
    } catch {
      throw new Error(`root ${absolute} does not exist: create it or pass another --root`);
    }
    if (!statSync(real).isDirectory()) throw new Error(`root ${absolute} is not a directory`);
    return real;
  }))];
}

export function isUnder(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

export type ResolvedPath = { ok: true; path: string } | { ok: false; code: 'path_outside_roots' | 'not_found'; message: string };

/** The path resolved, when it exists and lies under a root; else why not. */
export function resolveUnderRoots(path: string, roots: readonly string[]): ResolvedPath {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return { ok: false, code: 'not_found', message: `${path} does not exist on this machine` };
  }
  if (!roots.some((root) => isUnder(real, root))) {
    // the path as asked, never where a link in it leads: that would show the page what lies outside the roots
    return { ok: false, code: 'path_outside_roots', message: `${path} is not under any root of this machine (${roots.join(', ')}), once its links are followed: pick one under them, or restart the runner with --root` };
  }
  try {
    if (!statSync(real).isDirectory()) return { ok: false, code: 'not_found', message: `${path} is not a directory` };
  } catch {
    return { ok: false, code: 'not_found', message: `${path} does not exist on this machine` };
  }
  return { ok: true, path: real };
}
