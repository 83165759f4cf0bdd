// @ts-check
/** A plain sentence in place of a code; the code is in the tooltip (and data-code, for tests). */
import { html } from '../html.js';

/**
 * @param {{ said: import('../words.js').Said, class?: string }} props
 */
export function Word({ said, class: className = '' }) {
  return html`<span class=${`word ${className}`.trim()} title=${said.code ?? ''} data-code=${said.code ?? ''}>${said.text}</span>`;
}
