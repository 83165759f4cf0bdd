// @ts-check
/** The detail view of one session: status, actions, metadata, history and turns. */
import { h, replace } from './dom.js';
import { absoluteTime, flavorName, metaString, prettyJson, relativeTime } from './format.js';
import { lastRunBadge, presenceBadge, resumeBadge, stateBadge } from './badges.js';
import { renderHistory, renderTurns } from './history.js';

/**
 * @typedef {import('./sessions.js').SessionView} SessionView
 * @typedef {import('./sessions.js').SessionSnapshot} SessionSnapshot
 * @typedef {import('./api.js').Api} Api
 * @typedef {'runner' | 'dashboard' | 'admin' | null} Role
 */

const REFETCH_DELAY_MS = 250;

/**
 * @param {{ root: HTMLElement, sid: string, store: SessionView, api: Api, role: Role }} options
 * @returns {{ close(): void }}
 */
export function openDetail({ root, sid, store, api, role }) {
  const summary = h('section.summary');
  const metadata = h('section.metadata');
  const history = h('section.history-panel', {}, h('h3', {}, 'History'), h('p.muted', {}, 'Loading…'));
  const turns = h('section.turns-panel', {}, h('h3', {}, 'Turns'), h('p.muted', {}, 'Loading…'));
  const result = h('p.action-result', { role: 'status', 'aria-live': 'polite' });

  replace(
    root,
    h('nav.back', {}, h('a', { href: '#' }, '← All sessions')),
    summary,
    renderActions({ sid, api, role, result, store }),
    result,
    metadata,
    history,
    turns,
  );

  function renderLive() {
    const s = store.get(sid);
    if (!s) {
      replace(summary, h('h2', {}, 'Session'), h('p.muted', {}, `No session ${sid} in this namespace (yet).`));
      replace(metadata);
      return;
    }
    replace(summary, ...renderSummary(s));
    replace(
      metadata,
      h('h3', {}, 'Metadata ', h('span.version', { 'data-version': s.metadata.version }, `v${s.metadata.version}`)),
      h('pre.json', {}, prettyJson(s.metadata.value)),
    );
  }

  async function fetchHistory() {
    try {
      const body = await api.history(sid);
      replace(history, h('h3', {}, 'History'), renderHistory(body.history ?? []));
    } catch (err) {
      replace(history, h('h3', {}, 'History'), h('p.error', {}, messageOf(err)));
    }
  }

  async function fetchTurns() {
    try {
      const body = await api.turns(sid);
      replace(turns, h('h3', {}, 'Turns'), renderTurns(Array.isArray(body) ? body : []));
    } catch (err) {
      replace(turns, h('h3', {}, 'Turns'), h('p.error', {}, messageOf(err)));
    }
  }

  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let lastVersion = store.get(sid)?.metadata.version;
  const unsubscribe = store.subscribe((change) => {
    if (change.kind === 'sessions' && !change.sids.includes(sid)) return;
    renderLive();
    clearTimeout(timer);
    timer = setTimeout(() => {
      const version = store.get(sid)?.metadata.version;
      if (version !== lastVersion) {
        lastVersion = version;
        fetchHistory();
      }
      fetchTurns();
    }, REFETCH_DELAY_MS);
  });

  renderLive();
  fetchHistory();
  fetchTurns();

  return {
    close() {
      clearTimeout(timer);
      unsubscribe();
    },
  };
}

/** @param {SessionSnapshot} s */
function renderSummary(s) {
  const path = metaString(s.metadata.value, 'path');
  /** @type {[string, import('./dom.js').Child][]} */
  const rows = [
    ['Agent', flavorName(s.flavor)],
    ['Path', path || '—'],
    ['State', stateBadge(s.lifecycle)],
    ['Since', `${absoluteTime(s.lifecycle.since)}${s.lifecycle.by ? ` by ${s.lifecycle.by}` : ''}`],
    ['Presence', presenceBadge(s.presence)],
    ['Last run', [lastRunBadge(s.lifecycle.lastRun), s.lifecycle.lastRun?.reason ? h('span.reason', {}, s.lifecycle.lastRun.reason) : null]],
    ['Resume', [resumeBadge(s.resume), s.resume.tokenKey ? h('span.token-key', {}, 'token key ', h('code', {}, s.resume.tokenKey)) : null]],
    ['Parent', s.parentSid ? h('a', { href: `#/s/${encodeURIComponent(s.parentSid)}` }, s.parentSid) : '—'],
    ['Created', absoluteTime(s.createdAt)],
    ['Updated', `${absoluteTime(s.updatedAt)} (${relativeTime(s.updatedAt)})`],
  ];
  return [
    h('h2', {}, s.tag),
    h('p.sid', {}, h('code', {}, s.sid)),
    h('dl.facts', {}, rows.map(([term, value]) => [h('dt', {}, term), h('dd', { 'data-fact': term.toLowerCase() }, value)])),
  ];
}

/**
 * Resume and archive need a runner or admin token, repair an admin token (spec section 11).
 * @param {{ sid: string, api: Api, role: Role, result: HTMLElement, store: SessionView }} options
 */
function renderActions({ sid, api, role, result, store }) {
  if (role !== 'admin' && role !== 'runner') {
    return h('section.actions', {}, h('p.muted', {}, role === 'dashboard' || role === 'operator' ? 'Read-only token: actions need a runner or admin token.' : ''));
  }

  /**
   * @param {HTMLButtonElement} button
   * @param {() => Promise<import('./dom.js').Child>} action
   */
  async function run(button, action) {
    button.disabled = true;
    result.className = 'action-result';
    replace(result, 'Working…');
    try {
      const outcome = await action();
      result.className = 'action-result ok';
      replace(result, outcome);
    } catch (err) {
      result.className = 'action-result error';
      replace(result, messageOf(err));
    } finally {
      button.disabled = false;
    }
  }

  const policy = /** @type {HTMLSelectElement} */ (
    h('select', { id: 'resume-policy', 'aria-label': 'Resume policy' }, h('option', { value: 'safe' }, 'safe'), h('option', { value: 'force' }, 'force'))
  );
  const resume = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', id: 'action-resume' }, 'Resume'));
  resume.addEventListener('click', () =>
    run(resume, async () => {
      const r = await api.resume(sid, policy.value === 'force' ? 'force' : 'safe');
      return [
        `Resume ${flavorName(r.flavor)} with `,
        h('code', {}, `${r.tokenKey}=${typeof r.token === 'string' ? r.token : JSON.stringify(r.token)}`),
        r.path ? [' in ', h('code', {}, r.path)] : null,
        ` (policy ${r.policy})`,
      ];
    }),
  );

  const reason = /** @type {HTMLInputElement} */ (
    h('input', { id: 'archive-reason', type: 'text', placeholder: 'reason', 'aria-label': 'Archive reason', maxlength: 1024 })
  );
  const archive = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', id: 'action-archive' }, 'Archive'));
  archive.addEventListener('click', () =>
    run(archive, async () => {
      const text = reason.value.trim();
      if (!text) throw new Error('Give a reason to archive.');
      const snapshot = await api.archive(sid, text);
      if (snapshot?.sid) store.setResume(snapshot);
      reason.value = '';
      return `Archived: ${text}`;
    }),
  );

  const controls = [
    h('div.action', {}, policy, resume),
    h('div.action', {}, reason, archive),
  ];
  if (role === 'admin') {
    const repair = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', id: 'action-repair' }, 'Repair'));
    repair.addEventListener('click', () =>
      run(repair, async () => {
        const r = await api.repair(sid);
        const keys = Object.entries(r.restored ?? {});
        if (!keys.length) return `Nothing to restore (metadata stays at v${r.version}).`;
        return [`Restored as v${r.version}: `, keys.map(([k, v]) => h('code.chip', {}, `${k}=${JSON.stringify(v)}`))];
      }),
    );
    controls.push(h('div.action', {}, repair));
  }
  return h('section.actions', {}, h('h3', {}, 'Actions'), h('div.action-row', {}, controls));
}

/** @param {unknown} err */
function messageOf(err) {
  return err instanceof Error ? err.message : String(err);
}
