// @ts-check
/**
 * What a session wants from a person (its `attention`, docs/attention.md) in plain words, and the
 * "needs you" order: the longest waiting first. Pure functions, no DOM.
 */

/**
 * @typedef {import('../../shared/protocol/session.js').Attention} Attention
 * @typedef {import('../../shared/protocol/session.js').SessionSnapshot} SessionSnapshot
 */

/**
 * "wants approval to run Bash", "asks you something", "finished", "stopped on an error".
 * @param {Attention} attention
 */
export function sayAttention(attention) {
  switch (attention.kind) {
    case 'permission':
      return attention.tool ? `wants approval to run ${attention.tool}` : 'wants approval to run a tool';
    case 'question':
      return 'asks you something';
    case 'done':
      return 'finished';
    case 'failed':
      return 'stopped on an error';
    case 'retrying':
      return 'hit an error and keeps retrying';
    default:
      return String(attention.kind);
  }
}

/**
 * How urgent each kind is: a tool approval expires (the agent then asks in its terminal), a question
 * blocks the agent.
 * @type {Readonly<Record<string, number>>}
 */
const URGENCY = Object.freeze({ permission: 0, question: 1 });

/**
 * The sessions that wait on a person's decision or answer ("needs you", counted in the title): those
 * the hub says are `waiting` (an approval or a question: WAITS_ON_PERSON in shared/protocol/session.ts),
 * approvals first, the longest waiting first within each (the sid breaks ties). A finished turn is
 * not here: it is ready (below).
 * @param {Iterable<SessionSnapshot>} sessions
 * @returns {(SessionSnapshot & { attention: Attention })[]}
 */
export function needingYou(sessions) {
  const waiting = /** @type {(SessionSnapshot & { attention: Attention })[]} */ ([...sessions].filter((s) => s.attention && s.activity === 'waiting'));
  const rank = (/** @type {Attention} */ a) => URGENCY[a.kind] ?? 2;
  return waiting.sort((a, b) => rank(a.attention) - rank(b.attention) || a.attention.since - b.attention.since || (a.sid < b.sid ? -1 : 1));
}

/**
 * The sessions whose turn is over (finished, or stopped on an error) and that wait on nobody: ready
 * for their next prompt, the most recent first.
 * @param {Iterable<SessionSnapshot>} sessions
 * @returns {(SessionSnapshot & { attention: Attention })[]}
 */
export function readySessions(sessions) {
  const ready = /** @type {(SessionSnapshot & { attention: Attention })[]} */ ([...sessions].filter((s) => s.attention && s.activity !== 'waiting' && (s.attention.kind === 'done' || s.attention.kind === 'failed')));
  return ready.sort((a, b) => b.attention.since - a.attention.since || (a.sid < b.sid ? -1 : 1));
}

/**
 * One key per attention change of a session: a notification is shown at most once per key.
 * @param {SessionSnapshot} session
 */
export function attentionKey(session) {
  return session.attention ? `${session.sid}\u0000${session.attention.kind}\u0000${session.attention.since}` : null;
}

/**
 * The page title with the count of sessions that wait on a person: "(2) Session Hub".
 * @param {number} count
 */
export function pageTitle(count) {
  return count > 0 ? `(${count}) Session Hub` : 'Session Hub';
}
