/**
 * The error catalogue of the wire protocol (spec section 2 and 11): every code a client can be
 * answered with, its HTTP status, and what it means. One definition; acks, HTTP bodies and the
 * docs all read it.
 */
export const ERROR_CODES = {
  invalid_payload: { status: 400, meaning: 'the payload does not match the schema; the message names the field' },
  unauthorized: { status: 401, meaning: 'no token, or a token the hub does not know' },
  forbidden: { status: 403, meaning: 'the token is valid but its role may not do this' },
  not_found: { status: 404, meaning: 'no such session in the token\'s namespace' },
  conflict: { status: 409, meaning: 'the request conflicts with the current state' },
  payload_too_large: { status: 413, meaning: 'a document is larger than 64 KiB of UTF-8 JSON' },
  rate_limited: { status: 429, meaning: 'too many events; slow down' },
  queue_full: { status: 429, meaning: "the session's message queue is at its limit (count or bytes; the message names it): wait until its agent takes some, or cancel some" },
  internal: { status: 500, meaning: 'the hub failed; nothing was written' },
  unavailable: {
    status: 503,
    meaning: 'the hub cannot store anything now (database locked, disk full, database down), or the database connection broke during the commit (the message says the outcome is unknown): retry shortly, with the same requestId',
  },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;
export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/** An error that carries a catalogue code; thrown by services and mapped by code, never by message. */
export class HubError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = 'HubError';
    this.code = code;
  }
  get status(): number {
    return ERROR_CODES[this.code].status;
  }
}

export const hubError = {
  invalidPayload: (message: string) => new HubError('invalid_payload', message),
  notFound: (sid: string) => new HubError('not_found', `session ${sid} not found`),
  forbidden: (message: string) => new HubError('forbidden', message),
  conflict: (message: string) => new HubError('conflict', message),
  tooLarge: (message: string) => new HubError('payload_too_large', message),
  internal: () => new HubError('internal', 'internal error; nothing was written'),
  /** The database connection broke during COMMIT (store/sql.ts CommitOutcomeUnknown). */
  outcomeUnknown: () =>
    new HubError(
      'unavailable',
      'the database connection broke while this write was being committed: it may or may not be stored; retry it with the same requestId (applied once either way) or re-read the session',
    ),
};
