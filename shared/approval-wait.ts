/**
 * How long an approval waits for a person: one setting, the hub's `SESSION_HUB_APPROVAL_WAIT_MS`
 * (docs/attention.md). The installed approval hooks follow it: the bridge asks the hub to wait up
 * to the ceiling and the hub ends the wait at its own setting, so the hub's is the only one that
 * matters; `hook install` writes the agent's hook timeout above the ceiling. No imports: the
 * bundled hook bridge uses it.
 */

/** The default: long enough to reach a phone and decide (issue 34). */
export const DEFAULT_APPROVAL_WAIT_MS = 5 * 60_000;

/** The longest the hub may be set to wait, and what the installed hooks are ready to wait. */
export const MAX_APPROVAL_WAIT_MS = 60 * 60_000;
