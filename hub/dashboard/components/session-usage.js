// @ts-check
/**
 * A session's tokens and cost: the total (the snapshot's `usage`) and one row per model (summed from
 * its turns). A model without a price reads "no price known", never a guessed number.
 */
import { html } from '../html.js';
import { formatTokens, formatUsd, sayCost, tokenTotal, usageByModel } from '../usage.js';

/**
 * @param {{ session: import('../sessions.js').SessionSnapshot, turns: any[] | null }} props
 */
export function SessionUsage({ session, turns }) {
  const total = sayCost(session.usage);
  const models = usageByModel(turns ?? []);
  return html`<section class="usage-panel" id="session-usage">
    <h3>Usage ${total && html`<span class="cost" data-cost=${session.usage.costUsd ?? ''}>${total}</span>`}</h3>
    ${models.length
      ? html`<div class="table-scroll"><table class="usage-models">
          <thead><tr><th>Model</th><th>Input</th><th>Output</th><th>Cache</th><th>Cost</th></tr></thead>
          <tbody>${models.map((m) => html`<tr data-model=${m.model}>
            <td class="model">${m.model}</td>
            <td>${formatTokens(m.inputTokens)}</td>
            <td>${formatTokens(m.outputTokens)}</td>
            <td>${formatTokens(m.cacheReadTokens + m.cacheWriteTokens)}</td>
            <td class="model-cost">${m.costUsd === null ? html`<span class="muted">no price known</span>` : formatUsd(m.costUsd)}</td>
          </tr>`)}</tbody>
        </table></div>`
      : html`<p class="muted">${tokenTotal(session.usage) ? 'Tokens used, per model: in the turns.' : 'No tokens reported yet.'}</p>`}
  </section>`;
}
