/**
 * Deletes one file if it is there. `rmSync(path, { force: true })` would do the same, but it loads
 * Node's recursive-removal module on first use, a cost every hook call would pay on the agent's path.
 */
import { unlinkSync } from 'node:fs';

export function removeFileIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
