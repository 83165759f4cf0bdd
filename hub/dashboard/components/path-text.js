// @ts-check
/**
 * A path that wraps only between its parts: a line may break after a `/` (or `\`), never inside a
 * folder or file name; a single part wider than the line scrolls instead (style.css `.path-text`).
 */
import { html } from '../html.js';

/** @param {{ path: string, title?: string }} props */
export function PathText({ path, title = path }) {
  const parts = path.split(/(?<=[\\/])/);
  return html`<span class="path path-text" title=${title}>${parts.map((part, i) => html`${i > 0 && html`<wbr />`}<span class="path-part">${part}</span>`)}</span>`;
}
