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

/**
 * The run status an archive implies when it names none and the run is still live. The runner archived
 * without ending its run first, so only a reason of the table above says how it went; any other
 * reason ("Session crashed", "User terminated", "Local launch failed: …", none) is `cancelled`: the
 * archive cut the run off, and a run that did not report success must not be resumed as safe.
 */
export function runStatusFromArchiveReason(reason: string | undefined | null): RunEndStatus {
  return (reason && Object.prototype.hasOwnProperty.call(STATUS_BY_REASON, reason) ? STATUS_BY_REASON[reason] : undefined) ?? 'cancelled';
}
