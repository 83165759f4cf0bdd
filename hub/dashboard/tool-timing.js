// @ts-check
/**
 * How long a tool use took, apart from the time it waited for a person's approval (issue 34 point 8):
 * the approval of the same call (the agent's tool-use id when both have one, else the tool and its
 * input, opened while the tool was pending), its wait from opening to its end, and the tool's own time
 * (start to end, less that wait). Pure, no DOM.
 */

/**
 * @typedef {import('../../shared/protocol/session.js').Activity} Activity
 * @typedef {import('../../shared/protocol/attention.js').Approval} Approval
 */

/** JSON with sorted keys: the same input from two payloads compares equal. @param {unknown} value @returns {string} */
function canonical(value) {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const record = /** @type {Record<string, unknown>} */ (value);
  return `{${Object.keys(record).sort().map((k) => `${JSON.stringify(k)}:${canonical(record[k])}`).join(',')}}`;
}

/** An approval may open a moment before the tool's start reaches the hub (two hook processes). */
const SLACK_MS = 2000;

/**
 * The approval asked for this tool use, if any.
 * @param {Activity} activity
 * @param {readonly Approval[]} approvals
 * @returns {Approval | undefined}
 */
export function approvalOf(activity, approvals) {
  const byId = activity.toolUseId ? approvals.find((a) => a.toolUseId === activity.toolUseId) : undefined;
  if (byId) return byId;
  const input = canonical(activity.input);
  return approvals.find(
    (a) => a.toolUseId === null && a.tool === activity.tool && a.createdAt >= activity.at - SLACK_MS && (activity.endedAt == null || a.createdAt <= activity.endedAt) && canonical(a.input) === input,
  );
}

/**
 * The tool's own time and the person's: `ownMs` (null while it runs), `waitMs` (null without an
 * approval; up to `now` while it waits), and the approval.
 * @param {Activity} activity
 * @param {readonly Approval[]} approvals
 * @param {number} now
 * @returns {{ ownMs: number | null, runningMs: number | null, waitMs: number | null, approval: Approval | undefined }}
 */
export function toolTiming(activity, approvals, now) {
  const approval = approvalOf(activity, approvals);
  const waitMs = approval ? Math.max(0, (approval.decidedAt ?? now) - approval.createdAt) : null;
  const span = (activity.endedAt ?? now) - activity.at;
  const own = Math.max(0, span - (waitMs ?? 0));
  return activity.endedAt == null ? { ownMs: null, runningMs: own, waitMs, approval } : { ownMs: own, runningMs: null, waitMs, approval };
}
