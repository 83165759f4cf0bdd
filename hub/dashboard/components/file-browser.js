// @ts-check
/**
 * The session's files, from its directory, read through its machine runner (spec section 15):
 * folders to open, a file's text with line numbers (wrapped on a phone), a binary or cut file said
 * so. Loaded only when opened: nothing is read until a person asks.
 */
import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';
import { messageOf } from '../format.js';

/** @param {number} bytes */
function size(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** @param {string} path */
const parentOf = (path) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '.');

/** @param {{ sid: string, api: import('../api.js').Api }} props */
export function FileBrowser({ sid, api }) {
  const [open, setOpen] = useState(false);
  const [path, setPath] = useState('.');
  const [place, setPlace] = useState(/** @type {{ kind: 'loading' } | { kind: 'error', text: string } | { kind: 'ok', value: import('../../../shared/protocol/work.js').FilesResponse }} */ ({ kind: 'loading' }));
  useEffect(() => {
    if (!open) return undefined;
    let closed = false;
    setPlace({ kind: 'loading' });
    api.files(sid, path === '.' ? undefined : path).then(
      (value) => closed || setPlace({ kind: 'ok', value }),
      (err) => closed || setPlace({ kind: 'error', text: messageOf(err) }),
    );
    return () => {
      closed = true;
    };
  }, [api, sid, path, open]);
  /** @param {string} name */
  const into = (name) => setPath(path === '.' ? name : `${path}/${name}`);
  return html`<details class="file-browser" id="file-browser" onToggle=${(/** @type {Event} */ e) => setOpen(/** @type {HTMLDetailsElement} */ (e.currentTarget).open)}>
    <summary>Files</summary>
    ${open && html`<div class="files-body">
      <p class="files-path"><code>${path}</code>${path !== '.' && html` <button type="button" class="link" id="files-up" onClick=${() => setPath(parentOf(path))}>↑ up</button>`}</p>
      ${place.kind === 'loading' && html`<p class="muted">Reading…</p>`}
      ${place.kind === 'error' && html`<p class="error" role="alert">${place.text}</p>`}
      ${place.kind === 'ok' && place.value.kind === 'dir' && html`<ul class="file-entries">
        ${place.value.entries.map((entry) => html`<li>${entry.kind === 'dir'
          ? html`<button type="button" class="file-entry dir" onClick=${() => into(entry.name)}>📁 ${entry.name}/</button>`
          : html`<button type="button" class="file-entry" onClick=${() => into(entry.name)}>${entry.name} <span class="muted">${size(entry.size)}</span></button>`}</li>`)}
        ${place.value.entries.length === 0 && html`<li class="muted">An empty folder.</li>`}
      </ul>
      ${place.value.truncated && html`<p class="muted">More entries than shown.</p>`}`}
      ${place.kind === 'ok' && place.value.kind === 'file' && html`<div class="file-view">
        <p class="muted">${size(place.value.size)}${place.value.truncated ? ' · the first 1 MiB' : ''}</p>
        ${place.value.text === null ? html`<p class="muted">A binary file: not shown as text.</p>` : html`<ol class="file-text">${place.value.text.replace(/\n$/, '').split('\n').map((line) => html`<li><span class="code">${line}</span></li>`)}</ol>`}
      </div>`}
    </div>`}
  </details>`;
}
