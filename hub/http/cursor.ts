import { hubError } from '../../shared/errors.js';
import type { SessionSort } from '../store/session-list.js';

/**
 * Opaque list cursors: the sort key and sid of the last row of the previous page, and the sort they
 * belong to (a cursor of one sort means nothing in another). A cursor without a sort is one issued
 * before the list had sorts: it sorted by update.
 */
export function encodeCursor(position: { at: number; sid: string }, sort: SessionSort): string {
  return Buffer.from(JSON.stringify([position.at, position.sid, sort]), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, sort: SessionSort): { at: number; sid: string } {
  let decoded: unknown[] | undefined;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
  } catch {
    // any malformed cursor gets the same answer, below
  }
  const [at, sid, cursorSort = 'updated'] = Array.isArray(decoded) ? decoded : [];
  // at is epoch ms: a fraction or a number past 2^53 (1e400 parses as Infinity) is no cursor of
  // ours, and PostgreSQL's bigint would refuse it with an error, not an empty page
  if (!Number.isSafeInteger(at) || typeof sid !== 'string') {
    throw hubError.invalidPayload('cursor: not a cursor this hub issued; use nextCursor from the previous page');
  }
  if (cursorSort !== sort) throw hubError.invalidPayload(`cursor: issued for sort=${String(cursorSort)}, not sort=${sort}; use nextCursor with the same sort`);
  return { at: at as number, sid };
}
