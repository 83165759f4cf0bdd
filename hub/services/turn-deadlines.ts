/** When an open turn counts as timed out (spec 9): the sweep closes such turns and doctor lists them, by the same rule. */

/**
 * The latest activity time of a turn that has timed out at `now`. Spec 9: no activity for *more
 * than* the timeout, so a turn quiet for exactly that long stays open (times are whole ms). The
 * sweep and doctor agree.
 */
export function turnsTimedOutIfQuietSince(now: number, timeoutMs: number): number {
  return now - timeoutMs - 1;
}

/** What the sweep's turn queries take: quiet past the turn timeout, or past the tool timeout with a tool running. */
export function dueTurnThresholds(now: number, config: { turnTimeoutMs: number; toolTimeoutMs: number }): { before: number; toolBefore: number } {
  return { before: turnsTimedOutIfQuietSince(now, config.turnTimeoutMs), toolBefore: turnsTimedOutIfQuietSince(now, config.toolTimeoutMs) };
}
