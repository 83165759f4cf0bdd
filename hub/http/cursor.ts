import { hubError } from '../../shared/errors.js';

/** Opaque list cursors: the (updatedAt, sid) of the last row of the previous page. */
export function encodeCursor(position: { updatedAt: number; sid: string }): string {
  return Buffer.from(JSON.stringify([position.updatedAt, position.sid]), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): { updatedAt: number; sid: string } {
  try {
    const [updatedAt, sid] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    // updatedAt is epoch ms: a fraction or a number past 2^53 (1e400 parses as Infinity) is no
    // cursor of ours, and PostgreSQL's bigint would refuse it with an error, not an empty page
    if (Number.isSafeInteger(updatedAt) && typeof sid === 'string') return { updatedAt: updatedAt as number, sid };
  } catch {
    // fall through: any malformed cursor gets the same answer
  }
  throw hubError.invalidPayload('cursor: not a cursor this hub issued; use nextCursor from the previous page');
}
