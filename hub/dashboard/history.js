// @ts-check
/** Rendering of a session's metadata history and its turns (detail view). */
import { h } from './dom.js';
import { absoluteTime, prettyJson, truncate } from './format.js';

/**
 * @typedef {{ version: number, at: number, by: string, carried: string[], cleared: string[], dropped: string[],
 *   metadata: Record<string, unknown> }} HistoryEntry
 * @typedef {{ activityId: string, toolUseId: string | null, tool: string, input: unknown, output: unknown, at: number,
 *   truncated: boolean, status: 'running' | 'done' | 'failed', endedAt: number | null }} Activity
 * @typedef {import('./sessions.js').TurnSummary & { activities: Activity[] }} TurnWithActivity
 */

/**
 * @param {string} kind 'carried' | 'cleared' | 'dropped'
 * @param {string[]} keys
 */
function keyChips(kind, keys) {
  if (!keys.length) return null;
  return h(
    `div.keys.keys-${kind}`,
    { 'data-kind': kind },
    h('span.keys-label', {}, `${kind}:`),
    keys.map((key) => h(`code.chip.chip-${kind}`, {}, key)),
  );
}

/** @param {HistoryEntry[]} history oldest first, as the hub sends it */
export function renderHistory(history) {
  if (!history.length) return h('p.muted', {}, 'No versions.');
  return h(
    'ol.history',
    { reversed: true },
    [...history].reverse().map((entry) =>
      h(
        'li.version',
        { 'data-version': entry.version },
        h(
          'div.version-head',
          {},
          h('strong', {}, `v${entry.version}`),
          h('span', {}, absoluteTime(entry.at)),
          h(`span.badge.by-${entry.by}`, {}, `by ${entry.by}`),
        ),
        keyChips('carried', entry.carried),
        keyChips('cleared', entry.cleared),
        keyChips('dropped', entry.dropped),
        h('details', {}, h('summary', {}, 'document'), h('pre.json', {}, prettyJson(entry.metadata))),
      ),
    ),
  );
}

/**
 * A tool still running (a hook's PreToolUse) or one that failed; a finished one needs no badge.
 * @param {Activity} activity
 */
function statusBadge(activity) {
  if (activity.status === 'running') return h('span.badge', {}, 'running');
  if (activity.status === 'failed') return h('span.badge.warn', {}, 'failed');
  return null;
}

/** @param {Activity} activity */
function renderActivity(activity) {
  return h(
    'li.activity',
    {},
    h('div', {}, h('code', {}, activity.tool), ' ', h('span.muted', {}, absoluteTime(activity.at)), statusBadge(activity), activity.truncated ? h('span.badge.warn', {}, 'truncated') : null),
    activity.input != null ? h('details', {}, h('summary', {}, 'input'), h('pre.json', {}, prettyJson(activity.input))) : null,
    activity.output != null ? h('details', {}, h('summary', {}, 'output'), h('pre.json', {}, prettyJson(activity.output))) : null,
  );
}

/** @param {TurnWithActivity[]} turns */
export function renderTurns(turns) {
  if (!turns.length) return h('p.muted', {}, 'No turns yet.');
  return h(
    'ol.turns',
    { reversed: true },
    [...turns].reverse().map((turn) =>
      h(
        'li.turn',
        { 'data-turn': turn.turnId, 'data-status': turn.status },
        h(
          'div.turn-head',
          {},
          h(`span.badge.turn-${turn.status}`, {}, turn.status),
          turn.kind === 'recovery' ? h('span.badge', {}, 'recovery') : null,
          h('span.muted', {}, absoluteTime(turn.openedAt)),
          h('span.muted', {}, `${turn.activityCount} tool ${turn.activityCount === 1 ? 'use' : 'uses'}`),
        ),
        turn.prompt != null
          ? h('details.prompt', {}, h('summary', {}, truncate(turn.prompt, 120) || '(empty prompt)', turn.promptTruncated ? ' (cut by the hub)' : ''), h('pre.text', {}, turn.prompt))
          : null,
        turn.response != null ? h('details.response', {}, h('summary', {}, 'response'), h('pre.text', {}, turn.response)) : null,
        turn.activities?.length ? h('ol.activities', {}, turn.activities.map(renderActivity)) : null,
      ),
    ),
  );
}
