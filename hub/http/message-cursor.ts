import { hubError } from '../../shared/errors.js';
import type { MessagePosition } from '../store/messages.js';

/** Opaque cursor of GET …/messages: the position (creation time, id) of the oldest message of the page just read. */
export function encodeMessageCursor(position: MessagePosition): string {
  return Buffer.from(JSON.stringify([position.at, position.id]), 'utf8').toString('base64url');
}

export function decodeMessageCursor(cursor: string): MessagePosition {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    // any malformed cursor gets the same answer, below
  }
  const [at, id] = Array.isArray(decoded) ? (decoded as unknown[]) : [];
  if (!Number.isSafeInteger(at) || typeof id !== 'string') throw hubError.invalidPayload('cursor: not a cursor this hub issued; use nextCursor from the previous page');
  return { at: at as number, id };
}
