// @ts-check
/**
 * "Ready": sessions whose turn is over (finished, or stopped on an error) and that wait on nobody,
 * apart from "needs you" (issue 34): the most recent first, each with what it said last on one line.
 * Folded away once there are more than a few, so a day's finished sessions do not push the list down.
 */
import { html } from '../html.js';
import { readySessions, sayAttention } from '../attention.js';
import { truncate } from '../format.js';
import { openUnlessControl } from './needs-you.js';
import { RelTime } from './rel-time.js';

/** Shown unfolded up to this many. */
const OPEN_UP_TO = 3;
const MESSAGE_CHARS = 140;

/** @param {{ store: import('../sessions.js').SessionView, now: number }} props */
export function ReadyList({ store, now }) {
  const ready = readySessions(store.list());
  if (!ready.length) return null;
  return html`<details id="ready" class="ready" open=${ready.length <= OPEN_UP_TO}>
    <summary><h2>Ready <span class="count">${ready.length}</span></h2> <span class="muted">finished, waiting for a next prompt</span></summary>
    <ol class="ready-list">
      ${ready.map((s) => html`<li class="ready-row" key=${s.sid} data-sid=${s.sid} data-kind=${s.attention.kind} onClick=${(/** @type {MouseEvent} */ e) => openUnlessControl(e, s.sid)}>
        <a class="title" href=${`#/s/${encodeURIComponent(s.sid)}`}>${s.title}</a>
        <span class=${`attention-${s.attention.kind}`}>${sayAttention(s.attention)}</span> <${RelTime} at=${s.attention.since} now=${now} />
        ${s.attention.message && html`<p class="attention-message" title=${truncate(s.attention.message, 500)}>${truncate(s.attention.message, MESSAGE_CHARS)}</p>`}
      </li>`)}
    </ol>
  </details>`;
}
