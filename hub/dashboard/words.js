// @ts-check
/**
 * The page's one dictionary from the hub's codes to short plain sentences. The code itself is never
 * the text: components show the sentence and keep the code in a tooltip (components/word.js).
 * test/browser/words.test.ts checks that every code the protocol defines has a sentence here.
 * Free-text reasons (an archive reason a person typed) have no entry and are shown as they are.
 */

/** What the session is doing now (SessionSnapshot.activity). */
export const ACTIVITY = Object.freeze({
  working: 'Working',
  waiting: 'Needs you',
  idle: 'Waiting for a prompt',
  ended: 'Ended',
  lost: 'Lost contact',
});

/** Longer explanations of each activity (tooltip of the badge). */
export const ACTIVITY_HELP = Object.freeze({
  working: 'A turn is open and the agent is reporting.',
  waiting: 'The agent waits on your decision or answer: a tool approval or a question.',
  idle: 'No turn is open: the agent has answered and waits for its user.',
  ended: 'The session has ended.',
  lost: 'The hub stopped hearing from this agent.',
});

/** A changed file's status (spec section 15, ChangedFile.status). */
export const CHANGE_STATUS = Object.freeze({
  modified: 'modified',
  added: 'added',
  deleted: 'deleted',
  renamed: 'renamed',
  untracked: 'new',
});

/** Lifecycle states (Lifecycle.state). */
export const LIFECYCLE_STATE = Object.freeze({
  running: 'Running',
  idle: 'Idle for a long time',
  ended: 'Ended',
  archived: 'Archived',
});

/** Run statuses (Lifecycle.lastRun.status). */
export const RUN_STATUS = Object.freeze({
  running: 'The agent is running',
  success: 'The last run finished normally',
  failure: 'The last run failed',
  cancelled: 'The last run was cancelled',
  interrupted: 'The last run was cut off',
  crashed: 'The last run crashed',
});

/**
 * Why a lifecycle changed or a run ended: the hub's own reasons, a session-start's source, the
 * session-end reasons the hub maps to a run status, and the end reasons agents send (Claude Code's
 * SessionEnd `reason`).
 */
export const REASON = Object.freeze({
  // the hub's
  runner_lost: 'the agent disconnected and did not come back',
  runner_silent: 'no word from the agent for the idle time',
  agent_gone: 'the agent process exited without ending its session (killed or crashed)',
  agent_silent: 'the agent process stopped saying it runs (its machine or its keeper went away)',
  no_activity: 'nothing happened for the idle time',
  superseded_by_new_run: 'the agent started again',
  // a machine runner's
  runner_stopped: 'the machine runner stopped, and its agents with it',
  spawn_failed: 'the agent failed to start',
  archived: 'archived',
  // session-start sources
  startup: 'started',
  resume: 'resumed',
  clear: 'started fresh after /clear',
  compact: 'continued after compacting',
  // session-end reasons the hub maps to a run status
  completed: 'finished',
  terminated: 'stopped',
  cancelled: 'cancelled',
  error: 'stopped on an error',
  crashed: 'crashed',
  // Claude Code's SessionEnd reasons
  prompt_input_exit: 'the user left the agent',
  logout: 'the user logged out',
  other: 'the agent exited',
  bypass_permissions_disabled: 'permission bypass was turned off',
});

/** Resume verdicts (ResumeStatus.reason), see docs/resume.md. */
export const RESUME = Object.freeze({
  ok: 'Can resume safely',
  no_token: "Can't resume: the agent never reported a session to resume",
  token_rejected: "Can't resume: the agent refused the saved session",
  token_expired: "Can't resume: the saved session is too old",
  run_in_progress: "Can't resume safely: the agent is still running",
  last_run_failure: "Can't resume safely: the last run failed",
  last_run_cancelled: "Can't resume safely: the last run was cancelled",
  last_run_interrupted: "Can't resume safely: the last run was cut off",
  last_run_crashed: "Can't resume safely: the last run crashed",
});

/** Turn statuses (TurnSummary.status). */
export const TURN_STATUS = Object.freeze({
  open: 'In progress',
  completed: 'Done',
  aborted: 'Stopped',
  error: 'Failed',
  superseded: 'Replaced by the next prompt',
  timeout: 'Timed out',
});

/** Tool activity statuses (see tools.js activityStatus). */
export const TOOL_STATUS = Object.freeze({
  running: 'running',
  waiting: 'waiting for approval',
  done: 'done',
  failed: 'failed',
  denied: 'denied',
  abandoned: 'never finished',
  cancelled: 'not run',
});

/** Who made a change (Lifecycle.by, history entries). */
export const WRITER = Object.freeze({
  runner: 'the agent',
  hub: 'the hub',
  user: 'a person',
});

/**
 * @typedef {{ text: string, code: string | null }} Said a sentence and the code it came from
 */

/**
 * @param {Readonly<Record<string, string>>} table
 * @param {string | null | undefined} code
 * @returns {Said}
 */
export function say(table, code) {
  if (code == null || code === '') return { text: '', code: null };
  return Object.hasOwn(table, code) ? { text: table[code] ?? code, code } : { text: code, code: null };
}

/**
 * The lifecycle as one sentence: "Ended: the user left the agent".
 * @param {{ state: string, reason: string | null }} lifecycle
 */
export function sayLifecycle(lifecycle) {
  const state = say(LIFECYCLE_STATE, lifecycle.state).text;
  const reason = say(REASON, lifecycle.reason);
  const codes = [lifecycle.state, reason.code].filter(Boolean).join(' · ');
  return { text: reason.text ? `${state}: ${reason.text}` : state, code: codes };
}

/**
 * The last run as one sentence: "The last run was cut off: the agent disconnected and did not come back".
 * @param {{ status: string, reason: string | null } | null} lastRun
 */
export function sayLastRun(lastRun) {
  if (!lastRun) return { text: 'No run yet', code: null };
  const status = say(RUN_STATUS, lastRun.status).text;
  // a reason that only repeats the status ("cancelled: cancelled") says nothing more
  const reason = say(REASON, lastRun.reason === lastRun.status ? null : lastRun.reason);
  const codes = [lastRun.status, reason.code].filter(Boolean).join(' · ');
  return { text: reason.text ? `${status}: ${reason.text}` : status, code: codes };
}

/** @param {{ available: boolean, safe: boolean, reason: string | null }} resume */
export function sayResume(resume) {
  return say(RESUME, resume.available && resume.safe ? 'ok' : resume.reason ?? 'no_token');
}
