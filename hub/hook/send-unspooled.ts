/**
 * An event the spool cannot take (a full disk, a read-only or foreign-owned spool dir) is sent to
 * the hub directly, alone, instead of being dropped; stderr says what happened either way. Its seq
 * cannot be recorded: it is the only event of its request, and the hub orders only within a request.
 * Part of the bridge bundle.
 */
import { postHooks } from './send.js';
import type { HubTarget } from './spool-target.js';
import type { SpooledEvent } from './spool.js';
import { wireEvent } from './wire-event.js';
import { refusalAdvice } from './refusal.js';

const WRITE_ERRORS = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'EIO', 'ENOTDIR', 'EMFILE', 'ENFILE']);

/** True for a file-system error that means "the spool cannot be written here". */
export function isWriteError(error: unknown): error is NodeJS.ErrnoException {
  return WRITE_ERRORS.has((error as NodeJS.ErrnoException | undefined)?.code ?? '');
}

export async function sendUnspooled(
  event: Omit<SpooledEvent, 'seq'> & { seq?: number },
  target: HubTarget | undefined,
  why: string,
  timeoutMs: number,
): Promise<{ errors: string[]; answer?: Record<string, unknown> }> {
  const head = `the spool cannot be written (${why})`;
  if (target === undefined) return { errors: [`${head}, and SESSION_HUB_URL and SESSION_HUB_TOKEN are not both set: event ${event.id} is lost`] };
  const sent = await postHooks(target.url, target.token, JSON.stringify({ events: [wireEvent({ ...event, seq: event.seq ?? 0 })] }), timeoutMs);
  if (sent.kind === 'answered') {
    const result = sent.results.find((r) => r.id === event.id);
    const detail = result ? `${result.outcome}${result.detail ? `: ${result.detail}` : ''}` : 'not answered for';
    return { errors: [`${head}; event ${event.id} was sent to the hub directly (${detail})`], ...(result?.answer ? { answer: result.answer } : {}) };
  }
  if (sent.kind === 'refused') return { errors: [`${head}; ${refusalAdvice(sent.status, sent.message)}; event ${event.id} is lost`] };
  return { errors: [`${head}, and the hub could not take it (${sent.message}): event ${event.id} is lost`] };
}
