// @ts-check
/** One tool use in a turn's timeline: the tool, what it did in one line, how it went, and its input/output on demand. */
import { html } from '../html.js';
import { duration, prettyJson } from '../format.js';
import { activityStatus, toolSummary } from '../tools.js';
import { TOOL_STATUS } from '../words.js';

/**
 * @param {{ activity: import('../../../shared/protocol/session.js').Activity, since: number }} props
 *   since: when the previous step of the turn happened, for the "+12 s" offset
 */
export function ToolLine({ activity, since }) {
  const status = activityStatus(activity);
  const summary = toolSummary(activity.tool, activity.input);
  return html`<li class=${`tool tool-${status}`} data-status=${status} data-tool=${activity.tool}>
    <div class="tool-line">
      <span class="tool-name">${activity.tool}</span>
      <span class="tool-summary" title=${summary}>${summary}</span>
      <span class=${`tool-status status-${status}`} title=${status}>${TOOL_STATUS[status]}</span>
      <span class="tool-when muted" title=${new Date(activity.at).toLocaleString()}>+${duration(activity.at - since)}</span>
      ${activity.truncated && html`<span class="badge warn" title="The hub stored this input or output cut to its size limit">cut</span>`}
    </div>
    ${(activity.input != null || activity.output != null) &&
    html`<details class="tool-io">
      <summary>input and output</summary>
      ${activity.input != null && html`<pre class="json">${prettyJson(activity.input)}</pre>`}
      ${activity.output != null && html`<pre class="json">${prettyJson(activity.output)}</pre>`}
    </details>`}
  </li>`;
}
