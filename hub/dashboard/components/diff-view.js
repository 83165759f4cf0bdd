// @ts-check
/**
 * A unified diff drawn for a phone: one column, each line with its old and new line numbers, added
 * and removed lines coloured and marked (+ / −, not colour alone), long lines wrapped inside the
 * diff so the page never scrolls sideways. Parsed by parse-diff (git's own output, renames and
 * "no newline" included).
 */
import parseDiff from 'parse-diff';
import { html } from '../html.js';

/** @param {{ type: string, content: string, ln?: number, ln1?: number, ln2?: number }} change */
function row(change) {
  const kind = change.type === 'add' ? 'add' : change.type === 'del' ? 'del' : 'ctx';
  const oldNo = kind === 'add' ? '' : kind === 'del' ? change.ln : change.ln1;
  const newNo = kind === 'del' ? '' : kind === 'add' ? change.ln : change.ln2;
  const note = change.content.startsWith('\\');
  // parse-diff keeps git's marker as the first character: shown apart, so the code reads as written
  const sign = note ? '' : kind === 'add' ? '+' : kind === 'del' ? '−' : '';
  return html`<div class=${`diff-line diff-${note ? 'note' : kind}`}>
    <span class="ln" aria-hidden="true">${oldNo ?? ''}</span><span class="ln" aria-hidden="true">${newNo ?? ''}</span><span class="sign">${sign}</span><span class="code">${note ? change.content.slice(1).trim() : change.content.slice(1)}</span>
  </div>`;
}

/**
 * @param {{ diff: string, truncated?: boolean }} props
 */
export function DiffView({ diff, truncated }) {
  const files = parseDiff(diff);
  if (files.length === 0) return html`<p class="muted">No line changed.</p>`;
  return html`<div class="diff" data-files=${files.length}>
    ${files.map((file) => html`<section class="diff-file">
      ${files.length > 1 && html`<h5 class="diff-name">${file.to === '/dev/null' ? file.from : file.to}</h5>`}
      ${file.chunks.length === 0 && html`<p class="muted">${diff.includes('Binary files') ? 'A binary file: no lines to show.' : 'No line changed (its mode or name only).'}</p>`}
      ${file.chunks.map((chunk) => html`<div class="diff-chunk">
        <div class="diff-line diff-hunk"><span class="code">${chunk.content}</span></div>
        ${chunk.changes.map(row)}
      </div>`)}
    </section>`)}
    ${truncated && html`<p class="muted">The diff is cut here (over 1 MiB): see the rest on the machine.</p>`}
  </div>`;
}
