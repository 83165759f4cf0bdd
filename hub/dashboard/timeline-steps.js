// @ts-check
/**
 * A turn's steps in the order the agent worked: its tool uses and its own words between them (the
 * texts its hook bridge read from the transcript), by time; a text and a tool use at the same time:
 * the text first (the agent wrote it, then called the tool). The closing words the turn's
 * `response` shows already (after the last tool use) are left to it, not shown twice.
 */

/** @typedef {import('../../shared/protocol/session.js').Activity} Activity */
/** @typedef {import('../../shared/protocol/session.js').AgentText} AgentText */
/** @typedef {{ kind: 'tool', at: number, activity: Activity } | { kind: 'text', at: number, said: AgentText }} Step */

/**
 * @param {readonly Activity[]} activities
 * @param {readonly AgentText[]} texts
 * @param {string | null} response
 * @returns {Step[]}
 */
export function timelineSteps(activities, texts, response) {
  const lastToolAt = activities.reduce((latest, a) => Math.max(latest, a.at), -Infinity);
  const closing = (response ?? '').trim();
  const shownByResponse = (/** @type {AgentText} */ t) => t.at >= lastToolAt && closing !== '' && closing.includes(t.text.trim());
  /** @type {Step[]} */
  const steps = [
    ...texts.filter((t) => !shownByResponse(t)).map((said) => /** @type {Step} */ ({ kind: 'text', at: said.at, said })),
    ...activities.map((activity) => /** @type {Step} */ ({ kind: 'tool', at: activity.at, activity })),
  ];
  // stable: texts (listed first) before tool uses of the same millisecond, each kind in its own order
  return steps.sort((a, b) => a.at - b.at);
}
