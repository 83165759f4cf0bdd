// @ts-check
/** Display helpers: names, times, paths and truncation. Pure functions, no DOM. */
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
 * "just now", "12 s ago", "3 min ago", "2 h ago", "4 d ago".
 * @param {number | null | undefined} at epoch ms
 * @param {number} [now]
 */
export function relativeTime(at, now = Date.now()) {
  if (at == null) return '—';
  const s = Math.round((now - at) / 1000);
  if (s < 10) return 'just now';
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

export { duration, waitingFor } from './durations.js';

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

/**
 * @typedef {{ home: string | null, host: string | null }} HubHost the hub's host, from /api/whoami
 */

/**
 * A path under the home folder reads `~/...`. The home is the hub's host's: it applies when the
 * session runs on that host, i.e. its metadata has no `host` or the same `host` as the hub. A path
 * of another machine is shown whole (its home is not known).
 * @param {string} path
 * @param {Record<string, unknown>} metadata
 * @param {HubHost | null} hub
 */
export function displayPath(path, metadata, hub) {
  if (!path || !hub?.home) return path;
  const host = metaString(metadata, 'host');
  if (host && hub.host && host !== hub.host) return path;
  const home = hub.home.replace(/[\\/]+$/, '');
  if (path === home) return '~';
  return path.startsWith(`${home}/`) ? `~/${path.slice(home.length + 1)}` : path;
}

/**
 * The project folder: the git root where a runner reports it, else the working folder.
 * @param {Record<string, unknown>} metadata
 */
export function projectPath(metadata) {
  return metaString(metadata, 'projectRoot') || metaString(metadata, 'path');
}

/** @param {string} path */
export function lastPathPart(path) {
  return path.split(/[\\/]+/).filter(Boolean).pop() ?? path;
}

/** @param {unknown} err */
export function messageOf(err) {
  return err instanceof Error ? err.message : String(err);
}
