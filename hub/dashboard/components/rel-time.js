// @ts-check
/** A relative time ("3 min ago") with the exact time in its tooltip; the caller's `now` keeps it ticking. */
import { html } from '../html.js';
import { absoluteTime, relativeTime } from '../format.js';

/** @param {{ at: number | null | undefined, now: number }} props */
export function RelTime({ at, now }) {
  if (at == null) return html`<span class="muted">—</span>`;
  return html`<time class="ago" datetime=${new Date(at).toISOString()} title=${absoluteTime(at)}>${relativeTime(at, now)}</time>`;
}
