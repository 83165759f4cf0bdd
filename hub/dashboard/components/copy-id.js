// @ts-check
/** An id in small type with a button that copies it. */
import { useState } from 'preact/hooks';
import { html } from '../html.js';

/** @param {{ label: string, value: string, name: string }} props */
export function CopyId({ label, value, name }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch {
      // no clipboard (an insecure origin): select the text so it can be copied by hand
      const range = document.createRange();
      const code = document.querySelector(`[data-id="${name}"] code`);
      if (code) {
        range.selectNodeContents(code);
        getSelection()?.removeAllRanges();
        getSelection()?.addRange(range);
      }
    }
  }
  return html`<span class="copy-id" data-id=${name}>
    <span class="copy-label">${label}</span> <code>${value}</code>
    <button type="button" class="copy" onClick=${copy} aria-label=${`Copy ${label}`}>${copied ? 'Copied' : 'Copy'}</button>
  </span>`;
}
