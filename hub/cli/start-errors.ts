import type { HubConfig } from '../config.js';

/** Filesystem refusals met while creating or opening the data directory and its files. */
const FS_CODES = new Set(['EACCES', 'EPERM', 'ENOTDIR', 'EROFS', 'ENOSPC', 'EEXIST', 'EISDIR']);

/**
 * What a person should read when `session-hub start` fails: the cause in their terms (which port,
 * which directory, which setting) and the way out. Node's own texts ("listen EADDRINUSE: …",
 * "attempt to write a readonly database") name neither the setting nor the fix.
 */
export function explainStartFailure(error: unknown, config: HubConfig): string {
  const message = error instanceof Error ? error.message : String(error);
  const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown };
  const where = `${config.host}:${config.port}`;
  if (syscall === 'listen') {
    if (code === 'EADDRINUSE') {
      const other = config.port < 65535 ? config.port + 1 : 3737;
      return `port ${config.port} on ${config.host} is already in use (another hub, or another program). Stop that, or choose another port: SESSION_HUB_PORT=${other} or --port ${other} (0 picks a free one).`;
    }
    if (code === 'EACCES') return `not allowed to listen on ${where} (ports below 1024 need privileges): choose another port with SESSION_HUB_PORT or --port.`;
    if (code === 'EADDRNOTAVAIL') return `cannot listen on ${where}: ${config.host} is not an address of this machine. Set SESSION_HUB_HOST (or --host) to one of its addresses, e.g. 127.0.0.1 or 0.0.0.0.`;
    return `cannot listen on ${where}: ${message}`;
  }
  if (config.databaseUrl === undefined) {
    const dataDir = `the data directory ${config.dataDir} (SESSION_HUB_DATA or --data)`;
    if (typeof code === 'string' && FS_CODES.has(code)) {
      return `cannot use ${dataDir}: ${message}. Choose a directory this user may create and write, or fix its permissions.`;
    }
    if (code === 'SQLITE_READONLY' || code === 'SQLITE_CANTOPEN' || code === 'SQLITE_READONLY_DIRECTORY') {
      return `cannot write the database ${config.databaseFile} (${message}): this user needs write access to it and to ${dataDir}.`;
    }
  }
  return message;
}
