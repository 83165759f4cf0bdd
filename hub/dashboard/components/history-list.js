// @ts-check
/** The session's metadata versions, newest first, with the keys each write carried, cleared or dropped. */
import { html } from '../html.js';
import { absoluteTime, prettyJson } from '../format.js';
import { WRITER, say } from '../words.js';
import { Word } from './word.js';

const KEY_HELP = Object.freeze({
  carried: 'kept from the previous version though the write left them out',
  cleared: 'removed on purpose (set to null)',
  dropped: 'removed because a paired key changed',
});

/**
 * @param {{ kind: 'carried' | 'cleared' | 'dropped', keys: string[] }} props
 */
function KeyChips({ kind, keys }) {
  if (!keys.length) return null;
  return html`<div class=${`keys keys-${kind}`} data-kind=${kind}>
    <span class="keys-label" title=${KEY_HELP[kind]}>${kind}:</span>
    ${keys.map((key) => html`<code class=${`chip chip-${kind}`}>${key}</code>`)}
  </div>`;
}

/** @param {{ history: import('../../../shared/protocol/session.js').HistoryEntry[] | null, error: string }} props */
export function HistoryList({ history, error }) {
  let body;
  if (error) body = html`<p class="error">${error}</p>`;
  else if (history == null) body = html`<p class="muted">Loading…</p>`;
  else if (!history.length) body = html`<p class="muted">No versions.</p>`;
  else {
    body = html`<ol class="history" reversed>
      ${[...history].reverse().map(
        (entry) => html`<li class="version" data-version=${entry.version}>
          <div class="version-head">
            <strong>v${entry.version}</strong>
            <span>${absoluteTime(entry.at)}</span>
            <span>by <${Word} said=${say(WRITER, entry.by)} /></span>
          </div>
          <${KeyChips} kind="carried" keys=${entry.carried} />
          <${KeyChips} kind="cleared" keys=${entry.cleared} />
          <${KeyChips} kind="dropped" keys=${entry.dropped} />
          <details><summary>Show this version (raw)</summary><pre class="json">${prettyJson(entry.metadata)}</pre></details>
        </li>`,
      )}
    </ol>`;
  }
  return html`<section class="history-panel"><h3>Earlier versions of what it reported</h3>${body}</section>`;
}
