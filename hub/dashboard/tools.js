// @ts-check
/**
 * What a tool use did, in one line, and how it went. Tool names are the agents' own (Claude Code's
 * Bash, Read, ...); a tool this table does not know shows its input as key=value pairs.
 */
import { truncate } from './format.js';

/** @typedef {import('../../shared/protocol/session.js').Activity} Activity */

/** The input field that says what each known tool did. */
const SUMMARY_FIELD = Object.freeze({
  Bash: ['command'],
  Read: ['file_path', 'path'],
  Edit: ['file_path', 'path'],
  MultiEdit: ['file_path', 'path'],
  Write: ['file_path', 'path'],
  NotebookEdit: ['notebook_path', 'file_path'],
  Grep: ['pattern'],
  Glob: ['pattern'],
  WebFetch: ['url'],
  Task: ['description'],
});

const SUMMARY_CHARS = 160;

/** @param {unknown} value */
function asText(value) {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? '';
}

/**
 * A one-line summary of a tool use from its input.
 * @param {string} tool
 * @param {unknown} input
 */
export function toolSummary(tool, input) {
  if (input == null) return '';
  if (typeof input !== 'object' || Array.isArray(input)) return truncate(asText(input), SUMMARY_CHARS);
  const fields = /** @type {Record<string, readonly string[]>} */ (SUMMARY_FIELD)[tool];
  const record = /** @type {Record<string, unknown>} */ (input);
  for (const field of fields ?? []) {
    if (typeof record[field] === 'string' && record[field]) return truncate(/** @type {string} */ (record[field]), SUMMARY_CHARS);
  }
  const pairs = Object.entries(record).map(([key, value]) => `${key}=${asText(value)}`);
  return truncate(pairs.join(' '), SUMMARY_CHARS);
}

/**
 * A tool's input whole, for a person deciding whether to allow it: the field that says what it does
 * first (Bash's command, Write's file_path, ...), then every other field as `name: value`, nothing
 * cut (JSON for values that are not text).
 * @param {string} tool
 * @param {unknown} input
 * @returns {string}
 */
export function toolInputText(tool, input) {
  if (input == null) return '';
  if (typeof input !== 'object' || Array.isArray(input)) return typeof input === 'string' ? input : JSON.stringify(input, null, 2);
  const record = /** @type {Record<string, unknown>} */ (input);
  const fields = /** @type {Record<string, readonly string[]>} */ (SUMMARY_FIELD)[tool] ?? [];
  const main = fields.find((field) => typeof record[field] === 'string' && record[field]);
  const rest = Object.entries(record)
    .filter(([key]) => key !== main)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}`);
  return [...(main ? [/** @type {string} */ (record[main])] : []), ...rest].join('\n');
}

/**
 * How a tool use went: 'running' | 'done' | 'failed' | 'denied' (a person denied its approval) |
 * 'abandoned' (still running when its turn or session ended). The one place the page reads it: an
 * activity without a status (hubs before activity statuses) is done.
 * @param {Activity & { status?: 'running' | 'done' | 'failed' | 'denied' | 'abandoned' }} activity
 * @returns {'running' | 'done' | 'failed' | 'denied' | 'abandoned'}
 */
export function activityStatus(activity) {
  return activity.status ?? 'done';
}
