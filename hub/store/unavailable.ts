import { HubError } from '../../shared/errors.js';

/**
 * "The store cannot write now": a failure of the database, not of the request, that a retry a
 * little later can fix (another connection holds SQLite's write lock, a full disk, an I/O error,
 * PostgreSQL down or restarting). Both engines pass their transaction failures through
 * `asStoreUnavailable`, and the socket and HTTP layers answer it `unavailable` (503), which
 * clients retry, instead of `internal`.
 *
 * Deliberately not a HubError: code that treats a HubError as the request's own fault (a hook event
 * marked failed for good) must see it as the hub's failure, to be retried.
 */
export class StoreUnavailable extends Error {
  constructor(
    /** Why, in words safe to show a client (never a host name or a driver message). */
    readonly reason: string,
    cause: unknown,
  ) {
    super(`the store cannot write now: ${reason}`, { cause });
    this.name = 'StoreUnavailable';
  }
}

/** SQLite result codes (better-sqlite3's `code`, extended codes included) by their primary code. */
const SQLITE_REASONS: Record<string, string> = {
  SQLITE_BUSY: 'the database is locked by another connection',
  SQLITE_LOCKED: 'the database is locked by another connection',
  SQLITE_FULL: 'the disk holding the database is full',
  SQLITE_IOERR: 'the database file could not be read or written (I/O error)',
};

/** Node socket errors on the way to PostgreSQL. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** PostgreSQL SQLSTATEs: class 08 (connection exception), 57P01-57P03 (shutting down, cannot connect now), 53100/53300. */
function postgresReason(code: string): string | undefined {
  if (code.startsWith('08')) return 'the database connection failed';
  if (code === '57P01' || code === '57P02' || code === '57P03') return 'the database server is shutting down or starting';
  if (code === '53100') return 'the disk holding the database is full';
  if (code === '53300') return 'the database server has no free connection';
  return undefined;
}

/** The `pg` driver's own connection failures carry no code, only these messages. */
const PG_CONNECTION_MESSAGES = [/^Connection terminated/, /^timeout exceeded when trying to connect/, /^Client has encountered a connection error/];

function reasonOfOne(error: unknown): string | undefined {
  if (error instanceof StoreUnavailable) return error.reason;
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code.startsWith('SQLITE_')) return SQLITE_REASONS[code.split('_', 2).join('_')];
    if (NETWORK_CODES.has(code)) return 'the database connection failed';
    if (/^[0-9A-Z]{5}$/.test(code)) return postgresReason(code);
  }
  const message = (error as { message?: unknown }).message;
  if (typeof message === 'string' && PG_CONNECTION_MESSAGES.some((pattern) => pattern.test(message))) return 'the database connection failed';
  return undefined;
}

/** Why the store is unavailable, if `error` (or what caused it, or one of an AggregateError's errors) says so. */
export function unavailableReason(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  const queue = [error];
  while (queue.length > 0) {
    const next = queue.shift();
    if (seen.has(next) || seen.size > 16) continue;
    seen.add(next);
    const reason = reasonOfOne(next);
    if (reason !== undefined) return reason;
    if (typeof next === 'object' && next !== null) {
      if ('cause' in next) queue.push((next as { cause: unknown }).cause);
      if (Array.isArray((next as { errors?: unknown }).errors)) queue.push(...(next as { errors: unknown[] }).errors);
    }
  }
  return undefined;
}

/** The engines' one call: a store-unavailable failure becomes StoreUnavailable; any other error is returned as it is. */
export function asStoreUnavailable(error: unknown): unknown {
  if (error instanceof StoreUnavailable) return error;
  const reason = unavailableReason(error);
  return reason === undefined ? error : new StoreUnavailable(reason, error);
}

/** The answer to a client for a failure the store's unavailability caused, or undefined for any other failure. */
export function unavailableAnswer(error: unknown): HubError | undefined {
  const reason = unavailableReason(error);
  return reason === undefined ? undefined : new HubError('unavailable', `the hub cannot store anything now (${reason}); retry shortly`);
}
