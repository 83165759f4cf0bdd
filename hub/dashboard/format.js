// @ts-check
/** Display helpers: names, times and truncation. Pure functions, no DOM. */
import { FLAVOR_NAMES } from './flavors.js';

/**
 * Display names from the hub's flavor registry (shared/flavors.ts), which the hub serves as the
 * module /dashboard/flavors.js; an unknown flavor shows its id.
 * @param {string} id
 */
export function flavorName(id) {
  return Object.hasOwn(FLAVOR_NAMES, id) ? /** @type {Record<string, string>} */ (FLAVOR_NAMES)[id] : id;
}

/**
 * "just now", "12s ago", "5m ago", "3h ago", "2d ago".
 * @param {number | null | undefined} at epoch ms
 * @param {number} [now]
 */
export function relativeTime(at, now = Date.now()) {
  if (at == null) return '—';
  const s = Math.round((now - at) / 1000);
  if (s < 5) return 'just now';
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86400)}d ago`;
}

/** @param {number | null | undefined} at epoch ms */
export function absoluteTime(at) {
  return at == null ? '—' : new Date(at).toLocaleString();
}

/**
 * Cut a text to `max` characters (by code point) on one line.
 * @param {string | null | undefined} text
 * @param {number} max
 */
export function truncate(text, max) {
  if (!text) return '';
  const line = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(line);
  return chars.length <= max ? line : `${chars.slice(0, max - 1).join('')}…`;
}

/** @param {unknown} value */
export function prettyJson(value) {
  return JSON.stringify(value, null, 2) ?? 'null';
}

/**
 * A metadata string field, or ''.
 * @param {Record<string, unknown>} metadata
 * @param {string} key
 */
export function metaString(metadata, key) {
  const value = metadata[key];
  return typeof value === 'string' ? value : '';
}
