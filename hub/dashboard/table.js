// @ts-check
/** The live session table; one row per session, replaced in place when it changes. */
import { h, replace } from './dom.js';
import { flavorName, metaString, relativeTime, truncate } from './format.js';
import { lastRunBadge, presenceBadge, resumeBadge, stateBadge } from './badges.js';

/**
 * @typedef {import('./sessions.js').SessionSnapshot} SessionSnapshot
 * @typedef {import('./sessions.js').SessionView} SessionView
 */

const PROMPT_CHARS = 80;

/**
 * @param {{ tbody: HTMLElement, empty: HTMLElement, store: SessionView, onOpen: (sid: string) => void }} options
 */
export function createTable({ tbody, empty, store, onOpen }) {
  /** @type {Map<string, HTMLElement>} */
  const rows = new Map();

  /** @param {SessionSnapshot} s */
  function renderRow(s) {
    const path = metaString(s.metadata.value, 'path');
    const open = () => onOpen(s.sid);
    const prompt = s.currentTurn?.prompt ?? '';
    return h(
      'tr',
      {
        'data-sid': s.sid,
        'data-state': s.lifecycle.state,
        tabindex: 0,
        onclick: open,
        onkeydown: (/** @type {Event} */ e) => {
          if (/** @type {KeyboardEvent} */ (e).key === 'Enter') open();
        },
      },
      h('td.c-flavor', { 'data-label': 'Agent' }, flavorName(s.flavor)),
      h(
        'td.c-session',
        { 'data-label': 'Session' },
        h(
          'div',
          {},
          h('a.tag', { href: `#/s/${encodeURIComponent(s.sid)}` }, s.tag),
          path ? h('span.path', { title: path }, path) : null,
        ),
      ),
      h('td.c-state', { 'data-label': 'State' }, stateBadge(s.lifecycle)),
      h('td.c-presence', { 'data-label': 'Presence' }, presenceBadge(s.presence)),
      h('td.c-run', { 'data-label': 'Last run' }, lastRunBadge(s.lifecycle.lastRun)),
      h('td.c-resume', { 'data-label': 'Resume' }, resumeBadge(s.resume)),
      h(
        'td.c-prompt',
        { 'data-label': 'Current prompt', title: truncate(prompt, 500) },
        prompt ? truncate(prompt, PROMPT_CHARS) : h('span.muted', {}, s.currentTurn ? '(no prompt)' : '—'),
      ),
      h('td.c-updated', { 'data-label': 'Updated' }, h('time', { 'data-at': s.updatedAt, datetime: new Date(s.updatedAt).toISOString() }, relativeTime(s.updatedAt))),
    );
  }

  /** Put rows in the store's order, moving only the nodes that are out of place. */
  function order() {
    let cursor = tbody.firstElementChild;
    for (const s of store.list()) {
      const row = rows.get(s.sid);
      if (!row) continue;
      if (row === cursor) cursor = cursor.nextElementSibling;
      else tbody.insertBefore(row, cursor);
    }
    empty.hidden = rows.size > 0;
  }

  function renderAll() {
    rows.clear();
    replace(tbody);
    for (const s of store.list()) rows.set(s.sid, renderRow(s));
    order();
  }

  /** @param {string[]} sids changed, new or gone; new rows are put in order once for the lot */
  function renderSome(sids) {
    let added = false;
    for (const sid of sids) {
      const s = store.get(sid);
      const old = rows.get(sid);
      if (!s) {
        old?.remove();
        rows.delete(sid);
        continue;
      }
      const row = renderRow(s);
      rows.set(sid, row);
      if (old) old.replaceWith(row);
      else added = true;
    }
    if (added) order();
    else empty.hidden = rows.size > 0;
  }

  /** Refresh the relative times only. */
  function tick() {
    for (const el of tbody.querySelectorAll('time[data-at]')) {
      el.textContent = relativeTime(Number(el.getAttribute('data-at')));
    }
  }

  store.subscribe((change) => (change.kind === 'reset' ? renderAll() : renderSome(change.sids)));
  return { tick, renderAll };
}
