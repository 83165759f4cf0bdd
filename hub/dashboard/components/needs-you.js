// @ts-check
/**
 * "Needs you": the sessions whose agent waits for a person, the longest waiting first, each with
 * what it wants in plain words, how long it has waited (ticking), and its pending approvals.
 */
import { html } from '../html.js';
import { needingYou, sayAttention } from '../attention.js';
import { duration } from '../format.js';
import { ApprovalList } from './approval-list.js';

/**
 * A click anywhere on the row opens the session, except on its own links and buttons.
 * @param {MouseEvent} event
 * @param {string} sid
 */
function openUnlessControl(event, sid) {
  if (event.target instanceof Element && event.target.closest('a, button')) return;
  location.hash = `#/s/${encodeURIComponent(sid)}`;
}

/**
 * @param {{ store: import('../sessions.js').SessionView, api: import('../api.js').Api, role: string | null,
 *   hub: import('../format.js').HubHost | null, now: number }} props
 */
export function NeedsYou({ store, api, role, hub, now }) {
  const waiting = needingYou(store.list());
  if (!waiting.length) return null;
  return html`<section id="needs-you" class="needs-you" aria-label="Sessions that need you">
    <h2>Needs you <span class="count">${waiting.length}</span></h2>
    <ol class="needs-you-list">
      ${waiting.map((s) => html`<li class="needs-you-row" key=${s.sid} data-sid=${s.sid} data-kind=${s.attention.kind} onClick=${(/** @type {MouseEvent} */ e) => openUnlessControl(e, s.sid)}>
        <div class="session-top">
          <a class="title" href=${`#/s/${encodeURIComponent(s.sid)}`}>${s.title}</a>
          <span class=${`attention-badge attention-${s.attention.kind}`} data-kind=${s.attention.kind}>${sayAttention(s.attention)}</span>
        </div>
        <div class="session-meta">
          <span class="waited" title="how long it has waited">waiting ${duration(Math.max(0, now - s.attention.since))}</span>
          ${s.attention.message && html`${' '}<span class="attention-message">${s.attention.message}</span>`}
          <a class="reply-link" href=${`#/s/${encodeURIComponent(s.sid)}`}>Reply</a>
        </div>
        ${(s.attention.kind === 'permission' || s.attention.kind === 'question') && html`<${ApprovalList} sid=${s.sid} store=${store} api=${api} role=${role} hub=${hub} now=${now} />`}
      </li>`)}
    </ol>
  </section>`;
}
