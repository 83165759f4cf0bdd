// @ts-check
/** The live list of the namespace's sessions, ordered by last activity by default. */
import { useState } from 'preact/hooks';
import { html } from '../html.js';
import { useNow, useStore } from '../hooks.js';
import { SessionRow } from './session-row.js';

/**
 * @param {{ store: import('../sessions.js').SessionView, hub: import('../format.js').HubHost | null }} props
 */
export function SessionList({ store, hub }) {
  useStore(store);
  const now = useNow();
  const [order, setOrder] = useState(/** @type {import('../sessions.js').SortOrder} */ ('activity'));
  const sessions = store.list(order);
  return html`<section id="list">
    <div class="list-head">
      <h2>Sessions <span class="count">${sessions.length}</span></h2>
      <label class="sort">Order
        <select id="sort" value=${order} onChange=${(/** @type {Event} */ e) => setOrder(/** @type {any} */ (e.currentTarget).value)}>
          <option value="activity">last activity</option>
          <option value="created">newest</option>
        </select>
      </label>
    </div>
    ${sessions.length
      ? html`<ol id="sessions" class="sessions">${sessions.map((s) => html`<${SessionRow} key=${s.sid} session=${s} hub=${hub} now=${now} />`)}</ol>`
      : html`<p id="list-empty" class="muted">No sessions yet.</p>`}
  </section>`;
}
