import type { RunEndStatus } from '../../shared/protocol/session.js';

const STATUS_BY_REASON: Record<string, RunEndStatus> = {
  completed: 'success',
  terminated: 'cancelled',
  cancelled: 'cancelled',
  error: 'failure',
  crashed: 'failure',
};

/** The run status an end event implies when it names none (spec section 6). */
export function runStatusFromReason(reason: string | undefined | null): RunEndStatus {
  return (reason && Object.prototype.hasOwnProperty.call(STATUS_BY_REASON, reason) ? STATUS_BY_REASON[reason] : undefined) ?? 'success';
}
