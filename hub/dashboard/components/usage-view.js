// @ts-check
/**
 * The usage view (`#/usage`): tokens and cost over a range of days from `GET /api/usage`, grouped by
 * day, agent, project or model, and a small daily chart of the cost drawn as SVG here (no library).
 */
import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';
import { flavorName, lastPathPart, messageOf } from '../format.js';
import { formatTokens, formatUsd, sayCost, tokenTotal } from '../usage.js';
import { backToList, replaceHash, usageHashOf, usageViewOf } from '../route.js';

/** @typedef {import('../../../shared/protocol/http.js').UsageResponse} UsageResponse */

const RANGES = Object.freeze([
  ['7', 'last 7 days'],
  ['30', 'last 30 days'],
  ['90', 'last 90 days'],
]);
const GROUPS = Object.freeze([
  ['day', 'day'],
  ['flavor', 'agent'],
  ['project', 'project'],
  ['model', 'model'],
]);
const DAY_MS = 86_400_000;

/** @param {number} days the range ends with today (UTC) */
function rangeOf(days) {
  const tomorrow = Math.floor(Date.now() / DAY_MS) * DAY_MS + DAY_MS;
  return { from: String(tomorrow - days * DAY_MS), to: String(tomorrow) };
}

/**
 * @param {string} groupBy
 * @param {string | null} key
 */
function groupName(groupBy, key) {
  if (key === null) return groupBy === 'project' ? 'no project' : '—';
  if (groupBy === 'flavor') return flavorName(key);
  if (groupBy === 'project') return lastPathPart(key);
  if (groupBy === 'day') return new Date(Number(key) || key).toISOString().slice(0, 10);
  return key;
}

/** @param {{ api: import('../api.js').Api }} props */
export function UsageView({ api }) {
  const [days, setDays] = useState(() => { const d = usageViewOf(location.hash).days; return RANGES.some(([v]) => v === d) ? d : '30'; });
  const [groupBy, setGroupBy] = useState(() => { const by = usageViewOf(location.hash).by; return /** @type {'day' | 'flavor' | 'project' | 'model'} */ (GROUPS.some(([v]) => v === by) ? by : 'day'); });
  useEffect(() => replaceHash(usageHashOf({ days, by: groupBy })), [days, groupBy]);
  const [data, setData] = useState(/** @type {{ groups: UsageResponse | null, daily: UsageResponse | null, error: string }} */ ({ groups: null, daily: null, error: '' }));
  useEffect(() => {
    let closed = false;
    const range = rangeOf(Number(days));
    Promise.all([api.usage({ ...range, groupBy }), groupBy === 'day' ? null : api.usage({ ...range, groupBy: 'day' })]).then(
      ([groups, daily]) => closed || setData({ groups, daily: daily ?? groups, error: '' }),
      (err) => closed || setData({ groups: null, daily: null, error: messageOf(err) }),
    );
    return () => {
      closed = true;
    };
  }, [api, days, groupBy]);

  /** @param {Event} e */
  const value = (e) => /** @type {HTMLSelectElement} */ (e.currentTarget).value;
  return html`<section id="usage" class="usage-view">
    <nav class="back"><a href=${backToList()}>← All sessions</a></nav>
    <div class="list-head">
      <h2>Usage</h2>
      <label>Range <select id="usage-range" value=${days} onChange=${(/** @type {Event} */ e) => setDays(value(e))}>
        ${RANGES.map(([v, label]) => html`<option value=${v}>${label}</option>`)}
      </select></label>
      <label>By <select id="usage-group" value=${groupBy} onChange=${(/** @type {Event} */ e) => setGroupBy(/** @type {any} */ (value(e)))}>
        ${GROUPS.map(([v, label]) => html`<option value=${v}>${label}</option>`)}
      </select></label>
    </div>
    ${data.error && html`<p class="error">${data.error}</p>`}
    ${data.groups && html`<p id="usage-total" class="usage-total">
        <strong>${sayCost(data.groups.totals) || 'nothing used'}</strong>
        <span class="muted"> · ${formatTokens(tokenTotal(data.groups.totals))}</span>
      </p>
      ${data.daily && html`<${DailyChart} usage=${data.daily} />`}
      <div class="table-scroll"><table id="usage-groups" class="usage-groups">
        <thead><tr><th>${GROUPS.find(([v]) => v === groupBy)?.[1]}</th><th>Tokens</th><th>Cost</th></tr></thead>
        <tbody>${data.groups.groups.map((g) => html`<tr data-key=${g.key ?? ''}>
          <td title=${g.key ?? ''}>${groupName(groupBy, g.key)}</td>
          <td>${formatTokens(tokenTotal(g))}</td>
          <td>${sayCost(g) || '—'}</td>
        </tr>`)}</tbody>
      </table></div>
      ${!data.groups.groups.length && html`<p class="muted">No tokens reported in this range.</p>`}`}
  </section>`;
}

const CHART = Object.freeze({ width: 600, height: 120, gap: 1 });

/**
 * One bar per day of the range: the priced cost where there is one, else the tokens (the title of
 * each bar says both). Scales to its box (viewBox), so it fits a phone. With fewer than two days of
 * usage a chart says nothing the total does not (one thin bar in an empty box): a sentence instead.
 * @param {{ usage: UsageResponse }} props
 */
function DailyChart({ usage }) {
  const used = usage.groups.filter((g) => tokenTotal(g) > 0);
  if (used.length < 2) {
    const day = used[0] ? groupName('day', used[0].key) : null;
    return html`<p id="usage-chart-note" class="muted chart-legend">${day ? `All of it on ${day}: a daily chart starts with a second day of usage.` : 'No usage in this range.'}</p>`;
  }
  const days = Math.max(1, Math.round((usage.to - usage.from) / DAY_MS));
  const byDay = new Map(usage.groups.map((g) => [Math.floor((Number(g.key) || Date.parse(String(g.key))) / DAY_MS), g]));
  const priced = usage.totals.costUsd !== null;
  /** @param {import('../../../shared/protocol/usage.js').UsageTotals} g */
  const measure = (g) => (priced ? (g.costUsd ?? 0) : tokenTotal(g));
  const first = Math.floor(usage.from / DAY_MS);
  const bars = Array.from({ length: days }, (_, i) => ({ day: first + i, group: byDay.get(first + i) }));
  const max = Math.max(...bars.map((b) => (b.group ? measure(b.group) : 0)), 0) || 1;
  const w = CHART.width / days;
  return html`<svg id="usage-chart" class="usage-chart" viewBox=${`0 0 ${CHART.width} ${CHART.height}`} preserveAspectRatio="none" role="img"
      aria-label=${priced ? 'cost per day' : 'tokens per day'}>
    ${bars.map((b, i) => {
      const h = b.group ? Math.max(1, (measure(b.group) / max) * CHART.height) : 0;
      const label = `${new Date(b.day * DAY_MS).toISOString().slice(0, 10)}: ${b.group ? `${sayCost(b.group) || 'no cost'}, ${formatTokens(tokenTotal(b.group))}` : 'nothing'}`;
      return html`<rect class="bar" data-day=${b.day} x=${i * w} y=${CHART.height - h} width=${Math.max(0.5, w - CHART.gap)} height=${h}><title>${label}</title></rect>`;
    })}
  </svg>
  <p class="muted chart-legend">${priced ? `cost per day, highest ${formatUsd(max)}` : 'tokens per day'}
    <span class="chart-range">${new Date(first * DAY_MS).toISOString().slice(0, 10)} – ${new Date((first + days - 1) * DAY_MS).toISOString().slice(0, 10)}</span></p>`;
}
