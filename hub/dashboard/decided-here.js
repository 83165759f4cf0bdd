// @ts-check
/**
 * The approvals this page decided, kept for a while so the card says what was decided and by whom
 * instead of vanishing the moment the session stops needing anyone. Per page (tab), in memory.
 */

/** @typedef {import('../../shared/protocol/attention.js').Approval} Approval */

/** How long a decided card stays in "Needs you" unless dismissed. */
export const DECIDED_SHOWN_MS = 5 * 60_000;

/** @type {Map<string, { approval: Approval, at: number }>} by approval id */
const decided = new Map();
/** @type {Set<() => void>} */
const listeners = new Set();

function changed() {
  for (const listener of [...listeners]) listener();
}

/** @param {Approval} approval decided by this page just now */
export function rememberDecision(approval) {
  decided.set(approval.approvalId, { approval, at: Date.now() });
  changed();
}

/** @param {string} approvalId */
export function dismissDecision(approvalId) {
  if (decided.delete(approvalId)) changed();
}

/**
 * The decisions still shown at `now`, latest first.
 * @param {number} now
 * @returns {Approval[]}
 */
export function recentDecisions(now) {
  return [...decided.values()]
    .filter((d) => now - d.at < DECIDED_SHOWN_MS)
    .sort((a, b) => b.at - a.at)
    .map((d) => d.approval);
}

/** @param {() => void} listener @returns {() => void} unsubscribe */
export function onDecisions(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
