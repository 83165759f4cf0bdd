// @ts-check
/**
 * A text that may be very long (a person's 200,000-character message, an agent's answer): its
 * beginning, and "show all" for the rest, so one message does not make the page a hundred thousand
 * pixels tall (issue 34). Short texts show whole.
 */
import { useState } from 'preact/hooks';
import { html } from '../html.js';

/** Shown before "show all", in characters (code units: a cut inside a pair is mended below). */
export const CLAMP_CHARS = 600;

/** The text's first `max` characters, never ending in half a surrogate pair. @param {string} text @param {number} max */
function head(text, max) {
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/**
 * @param {{ text: string, tag?: 'p' | 'pre' | 'span', class?: string, max?: number }} props
 */
export function ClampedText({ text, tag = 'p', class: className = '', max = CLAMP_CHARS }) {
  const [whole, setWhole] = useState(false);
  const long = text.length > max;
  const shown = long && !whole ? `${head(text, max)}…` : text;
  const Tag = tag;
  return html`<${Tag} class=${className} data-clamped=${long && !whole ? 'true' : 'false'}>${shown}</${Tag}>${long &&
  html`<button type="button" class="show-more" aria-expanded=${whole} onClick=${() => setWhole(!whole)}>
      ${whole ? 'Show less' : `Show all (${(text.length - max).toLocaleString('en-US')} more characters)`}</button>`}`;
}
