// @ts-check
/**
 * One tool use in a turn's timeline: the tool, what it did in one line, how it went, how long the
 * tool itself took and, apart, how long it waited for a person's approval (and who decided); the
 * change a file edit made as a diff; its input/output on demand.
 */
import { html } from '../html.js';
import { absoluteTime, duration, prettyJson } from '../format.js';
import { editDiff } from '../diff.js';
import { toolTiming } from '../tool-timing.js';
import { activityStatus, toolSummary } from '../tools.js';
import { TOOL_STATUS } from '../words.js';
import { decider, outcomeWords } from './approval-list.js';

/** A diff longer than this shows its first lines and a "show all" button. */
const DIFF_LINES = 60;

/** @type {Readonly<Record<string, string>>} */
const MARK = Object.freeze({ add: '+', del: '-', ctx: ' ', gap: '' });

/** @param {{ lines: import('../diff.js').DiffLine[] }} props */
function Diff({ lines }) {
  const rows = (/** @type {import('../diff.js').DiffLine[]} */ shown) => shown.map((l) => html`<span class=${`diff-${l.kind}`}>${MARK[l.kind]}${l.text}</span>`);
  if (lines.length <= DIFF_LINES) return html`<pre class="diff">${rows(lines)}</pre>`;
  return html`<details class="diff-long"><summary>the change: ${lines.filter((l) => l.kind === 'add').length} lines in, ${lines.filter((l) => l.kind === 'del').length} out (show)</summary><pre class="diff">${rows(lines)}</pre></details>`;
}

/**
 * The wait for a person, and how it ended: who decided, and their reason or why it closed.
 * @param {import('../../../shared/protocol/attention.js').Approval} approval @param {number} waitMs
 */
function waitWords(approval, waitMs) {
  if (approval.status === 'pending') return `waiting for approval ${duration(waitMs)}`;
  const waited = `waited ${duration(waitMs)} for approval`;
  const why = approval.message ? `: ${approval.message}` : '';
  if (approval.status === 'allowed') return html`${waited}: allowed${decider(approval)}`;
  if (approval.status === 'denied') return html`${waited}: denied${decider(approval)}${why}`;
  if (approval.status === 'cancelled') return html`${waited}: closed${decider(approval)}${why}`;
  return html`${waited}: ${outcomeWords(approval)}${why}`;
}

/**
 * @param {{ activity: import('../../../shared/protocol/session.js').Activity,
 *   approvals: readonly import('../../../shared/protocol/attention.js').Approval[], now: number }} props
 */
export function ToolLine({ activity, approvals, now }) {
  const { ownMs, runningMs, waitMs, approval } = toolTiming(activity, approvals, now);
  // a call its agent announced that waits for a person has not started: it is not "running 170 ms"
  const status = activityStatus(activity) === 'running' && approval?.status === 'pending' ? 'waiting' : activityStatus(activity);
  // a denied or cancelled call never ran: it has no time of its own to show
  const ran = status !== 'denied' && status !== 'cancelled';
  const summary = toolSummary(activity.tool, activity.input);
  const diff = editDiff(activity.tool, activity.input);
  return html`<li class=${`tool tool-${status}`} data-status=${status} data-tool=${activity.tool}>
    <div class="tool-line">
      <span class="tool-name">${activity.tool}</span>
      <span class="tool-summary" title=${summary}>${summary}</span>
      <span class=${`tool-status status-${status}`} title=${status}>${TOOL_STATUS[status]}</span>
      <span class="tool-took muted" title=${`started ${absoluteTime(activity.at)}; the tool's own time, without waiting for a person`}
        data-own-ms=${ran ? (ownMs ?? '') : ''}>${!ran ? '' : ownMs != null ? duration(ownMs) : status === 'running' ? `${duration(runningMs ?? 0)} so far` : ''}</span>
      ${activity.truncated && html`<span class="badge warn" title="The hub stored this input or output cut to its size limit">cut</span>`}
    </div>
    ${waitMs != null && approval &&
    html`<div class="tool-waited" data-wait-ms=${waitMs} data-approval=${approval.status}>${waitWords(approval, waitMs)}</div>`}
    ${diff && html`<${Diff} lines=${diff} />`}
    ${(activity.input != null || activity.output != null) &&
    html`<details class="tool-io">
      <summary>input and output</summary>
      ${activity.input != null && html`<pre class="json">${prettyJson(activity.input)}</pre>`}
      ${activity.output != null && html`<pre class="json">${prettyJson(activity.output)}</pre>`}
    </details>`}
  </li>`;
}
