// @ts-check
/** The session's activity, the first thing a person reads about it. */
import { html } from '../html.js';
import { ACTIVITY, ACTIVITY_HELP } from '../words.js';

/** @param {{ activity: import('../../../shared/protocol/session.js').SessionActivity }} props */
export function ActivityBadge({ activity }) {
  const help = /** @type {Record<string, string>} */ (ACTIVITY_HELP)[activity] ?? '';
  return html`<span class=${`activity-badge activity-${activity}`} data-activity=${activity} title=${`${help} (${activity})`}>
    ${/** @type {Record<string, string>} */ (ACTIVITY)[activity] ?? activity}
  </span>`;
}
