import type { ErrorCode } from '../errors.js';

/**
 * Catalogue codes, plus two of the client's own: `timeout` (no answer within the time budget) and
 * `disconnected` (the socket dropped before the answer came; the request may or may not have been applied).
 */
export type HubRequestErrorCode = ErrorCode | 'timeout' | 'disconnected';

/**
 * Codes a retry can never fix: the SDK gives up at once and rejects with them. Every other code is
 * retried within the write's budget: `rate_limited`, `internal`, and `unavailable` (the hub's
 * database is locked, full or down for now), which exists so that clients retry.
 */
const FINAL_CODES: ReadonlySet<HubRequestErrorCode> = new Set(['invalid_payload', 'not_found', 'forbidden', 'unauthorized', 'payload_too_large', 'conflict']);

/**
 * A request the hub refused (or never answered), with the catalogue code of spec section 2.
 *
 * @example
 * try {
 *   await runner.updateMetadata(sid, (m) => ({ ...m, title: 'x' }));
 * } catch (error) {
 *   if (error instanceof HubRequestError && error.code === 'not_found') forgetSession(sid);
 * }
 */
export class HubRequestError extends Error {
  readonly code: HubRequestErrorCode;
  /** The wire event that failed, e.g. `update-metadata`. */
  readonly event: string;
  constructor(code: HubRequestErrorCode, message: string, event: string) {
    super(message);
    this.name = 'HubRequestError';
    this.code = code;
    this.event = event;
  }
  /** True when retrying cannot help (bad payload, unknown session, not allowed, too large). */
  get final(): boolean {
    return FINAL_CODES.has(this.code);
  }
}

export function isFinalError(error: unknown): boolean {
  return error instanceof HubRequestError && error.final;
}
