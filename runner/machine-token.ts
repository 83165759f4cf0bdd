/**
 * Where the runner's machine token comes from (spec section 14). The agents are the runner's
 * children and run as the same user: `/proc/<runner>/environ` is readable to them, so a token in the
 * runner's environment is a token in every agent's reach. `SESSION_HUB_MACHINE_TOKEN_FILE` (a file
 * holding the token, mode 0600, what `runner install` writes) keeps it out of every process
 * environment; the environment variable still works, with a warning that says so.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

export class TokenFileError extends Error {}

export const TOKEN_IN_ENV_WARNING =
  'SESSION_HUB_MACHINE_TOKEN is in the runner\'s environment, which every agent it starts can read (/proc/<runner pid>/environ): put the token in a file only you can read and pass SESSION_HUB_MACHINE_TOKEN_FILE instead (runner install does this)';

/** The token held by `path`: refused unless a regular file of this user that neither group nor others may read or write. */
export function readTokenFile(path: string): string {
  let fd: number;
  try {
    // no symlink followed, and the checks are of the file then read (fstat of the open descriptor)
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    if (code === 'ELOOP') throw new TokenFileError(`SESSION_HUB_MACHINE_TOKEN_FILE=${path} is not a regular file (a symlink): point it at the file itself`);
    throw new TokenFileError(`SESSION_HUB_MACHINE_TOKEN_FILE=${path} cannot be read: ${code}; write the machine token there (session-hub token create --role machine) and chmod 600 it`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new TokenFileError(`SESSION_HUB_MACHINE_TOKEN_FILE=${path} is not a regular file (a directory, device or pipe): point it at the file itself`);
    if ((stat.mode & 0o077) !== 0) {
      throw new TokenFileError(`SESSION_HUB_MACHINE_TOKEN_FILE=${path} has mode ${(stat.mode & 0o777).toString(8).padStart(3, '0')}: group or others may read or write it; run chmod 600 ${path}`);
    }
    if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) {
      throw new TokenFileError(`SESSION_HUB_MACHINE_TOKEN_FILE=${path} belongs to another user (uid ${stat.uid}): the runner's own user must own it (chown it, then chmod 600 ${path})`);
    }
    const token = readFileSync(fd, 'utf8').trim();
    if (!token) throw new TokenFileError(`SESSION_HUB_MACHINE_TOKEN_FILE=${path} is empty: write the machine token there`);
    if (/\s/.test(token)) throw new TokenFileError(`SESSION_HUB_MACHINE_TOKEN_FILE=${path} holds more than one word: it must hold the token alone`);
    return token;
  } finally {
    closeSync(fd);
  }
}

/** The token and, when it came from the environment, the warning to log. */
export function machineTokenFrom(env: NodeJS.ProcessEnv): { token: string; warning?: string } | undefined {
  const file = env.SESSION_HUB_MACHINE_TOKEN_FILE?.trim();
  if (file) return { token: readTokenFile(file) };
  const token = env.SESSION_HUB_MACHINE_TOKEN?.trim();
  return token ? { token, warning: TOKEN_IN_ENV_WARNING } : undefined;
}
