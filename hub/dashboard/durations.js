// @ts-check
/** Durations in words. Pure functions with no imports: the tests load this file as is. */

/**
 * How long a session has waited on a person: "waiting 12 s", or "waiting since just now" under a
 * second (a person's wait in milliseconds read as a glitch: "waiting 0 ms").
 * @param {number} ms
 */
export function waitingFor(ms) {
  return ms < 1000 ? 'waiting since just now' : `waiting ${duration(ms)}`;
}

/**
 * "850 ms", "12 s", "3 min 5 s", "1 h 2 min".
 * @param {number} ms
 */
export function duration(ms) {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  return `${Math.floor(s / 3600)} h${Math.floor((s % 3600) / 60) ? ` ${Math.floor((s % 3600) / 60)} min` : ''}`;
}
