// @ts-check
/**
 * "Needs you": the sessions whose agent waits on a person's decision or answer, the most urgent first
 * (a tool approval, which expires, then a question; a finished turn is "ready": ready-list.js), each with what it wants in plain words, how
 * long it has waited (ticking), and its pending approvals with the time left. An approval decided on
 * this page stays as a card saying what was decided and by whom until dismissed (decided-here.js).
 */
import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';
import { needingYou, sayAttention } from '../attention.js';
import { dismissDecision, onDecisions, recentDecisions } from '../decided-here.js';
import { truncate, waitingFor } from '../format.js';
import { ApprovalList, ApprovalOutcome } from './approval-list.js';

/**
 * A click anywhere on the row opens the session, except on its own links and buttons.
 * @param {MouseEvent} event
 * @param {string} sid
 */
export function openUnlessControl(event, sid) {
  if (event.target instanceof Element && event.target.closest('a, button, pre')) return;
  location.hash = `#/s/${encodeURIComponent(sid)}`;
}

/** Re-renders the caller when this page decides or dismisses. */
function useDecisions() {
  const [, setVersion] = useState(0);
  useEffect(() => onDecisions(() => setVersion((v) => v + 1)), []);
}

/**
 * @param {{ store: import('../sessions.js').SessionView, api: import('../api.js').Api, role: string | null,
 *   hub: import('../format.js').HubHost | null, now: number }} props
 */
export function NeedsYou({ store, api, role, hub, now }) {
  useDecisions();
  const waiting = needingYou(store.list());
  const decided = recentDecisions(Date.now());
  const waitingSids = new Set(waiting.map((s) => s.sid));
  // decided here, and the session needs nobody now: its card stays on its own
  const doneHere = decided.filter((a) => !waitingSids.has(a.sid));
  if (!waiting.length && !doneHere.length) return null;
  return html`<section id="needs-you" class="needs-you" aria-label="Sessions that need you">
    <h2>Needs you <span class="count">${waiting.length}</span></h2>
    <ol class="needs-you-list">
      ${waiting.map((s) => html`<li class="needs-you-row" key=${s.sid} data-sid=${s.sid} data-kind=${s.attention.kind} onClick=${(/** @type {MouseEvent} */ e) => openUnlessControl(e, s.sid)}>
        <div class="session-top">
          <a class="title" href=${`#/s/${encodeURIComponent(s.sid)}`}>${s.title}</a>
          <span class=${`attention-badge attention-${s.attention.kind}`} data-kind=${s.attention.kind}>${sayAttention(s.attention)}</span>
        </div>
        <div class="session-meta">
          <span class="waited" title="how long it has waited">${waitingFor(now - s.attention.since)}</span>
          ${s.attention.message && html`${' '}<span class="attention-message" title=${truncate(s.attention.message, 500)}>${truncate(s.attention.message, 300)}</span>`}
          <a class="reply-link" href=${`#/s/${encodeURIComponent(s.sid)}`}>Reply</a>
        </div>
        ${html`<${ApprovalList} sid=${s.sid} store=${store} api=${api} role=${role} hub=${hub} now=${now} keep=${decided.filter((a) => a.sid === s.sid).map((a) => a.approvalId)} since=${s.attention.since} />`}
      </li>`)}
      ${doneHere.map((a) => html`<li class="needs-you-row needs-you-decided" key=${a.approvalId} data-sid=${a.sid} data-decided=${a.approvalId} onClick=${(/** @type {MouseEvent} */ e) => openUnlessControl(e, a.sid)}>
        <div class="session-top">
          <a class="title" href=${`#/s/${encodeURIComponent(a.sid)}`}>${store.get(a.sid)?.title ?? a.sid}</a>
          <button type="button" class="dismiss" aria-label="Dismiss" title="Dismiss" onClick=${() => dismissDecision(a.approvalId)}>×</button>
        </div>
        <div class="approval" data-approval-id=${a.approvalId} data-status=${a.status}>
          <div class="approval-what"><span class="approval-tool">${a.tool}</span></div>
          <${ApprovalOutcome} a=${a} now=${now} />
        </div>
      </li>`)}
    </ol>
  </section>`;
}
