// @ts-check
/** The session's turns, newest first. */
import { html } from '../html.js';
import { useNow } from '../hooks.js';
import { TurnItem } from './turn-item.js';

/**
 * @param {{ turns: import('../../../shared/protocol/session.js').TurnWithActivity[] | null, error: string,
 *   approvals: readonly import('../../../shared/protocol/attention.js').Approval[] | null }} props
 *   approvals: the session's, for each tool's wait for a person
 */
export function TurnTimeline({ turns, error, approvals }) {
  const now = useNow();
  return html`<section class="turns-panel">
    <h3>Turns</h3>
    ${error
      ? html`<p class="error">${error}</p>`
      : turns == null
        ? html`<p class="muted">Loading…</p>`
        : turns.length === 0
          ? html`<p class="muted">No turns yet.</p>`
          : html`<ol class="turns" reversed>${[...turns].reverse().map((t) => html`<${TurnItem} key=${t.turnId} turn=${t} now=${now} approvals=${approvals ?? []} />`)}</ol>`}
  </section>`;
}
