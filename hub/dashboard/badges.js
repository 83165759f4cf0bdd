// @ts-check
/** Small status pieces shared by the table and the detail view. */
import { h } from './dom.js';

/** @typedef {import('./sessions.js').SessionSnapshot} SessionSnapshot */

/** @param {SessionSnapshot['lifecycle']} lifecycle */
export function stateBadge(lifecycle) {
  const reason = lifecycle.reason ? ` · ${lifecycle.reason}` : '';
  const by = lifecycle.by ? ` (by ${lifecycle.by})` : '';
  return h(
    'span.state',
    { 'data-state': lifecycle.state, title: `${lifecycle.state}${reason}${by}` },
    h(`span.badge.state-${lifecycle.state}`, {}, lifecycle.state),
    lifecycle.reason ? h('span.reason', {}, lifecycle.reason) : null,
  );
}

/** @param {SessionSnapshot['presence']} presence */
export function presenceBadge(presence) {
  const label = presence.active ? (presence.thinking ? 'thinking' : 'active') : 'inactive';
  return h(`span.badge.presence-${label}`, { 'data-presence': label }, label);
}

/** @param {SessionSnapshot['lifecycle']['lastRun']} lastRun */
export function lastRunBadge(lastRun) {
  if (!lastRun) return h('span.muted', {}, 'no run yet');
  return h(
    `span.badge.run-${lastRun.status}`,
    { title: lastRun.reason ?? '' },
    lastRun.status,
  );
}

/** @param {SessionSnapshot['resume']} resume */
export function resumeBadge(resume) {
  if (!resume.available) {
    return h('span.resume', {}, h('span.badge.resume-no', {}, 'unavailable'), resume.reason ? h('span.reason', {}, resume.reason) : null);
  }
  if (!resume.safe) {
    return h('span.resume', {}, h('span.badge.resume-unsafe', {}, 'unsafe'), resume.reason ? h('span.reason', {}, resume.reason) : null);
  }
  return h('span.resume', {}, h('span.badge.resume-ok', {}, 'safe'));
}
