// @ts-check
/**
 * What a view keeps in the address, so a link reopens it: the list's search and filters
 * (`#/?q=…&agent=…&state=…&project=…&needs=1&order=created`) and the usage view's range and grouping
 * (`#/usage?days=7&by=flavor`). Views write it with replaceState (typing does not add history
 * entries) and read it on load and on hashchange.
 */

/** @typedef {{ q: string, flavor: string, state: string, project: string, needsYou: boolean, order: string }} ListView */

export const LIST_DEFAULTS = /** @type {ListView} */ (Object.freeze({ q: '', flavor: '', state: '', project: '', needsYou: false, order: 'activity' }));

/** The query part of a hash (`#/usage?days=7` → `days=7`). @param {string} hash */
function paramsOf(hash) {
  const at = hash.indexOf('?');
  return new URLSearchParams(at === -1 ? '' : hash.slice(at + 1));
}

/** True when the hash shows the session list (not a session, not usage). @param {string} hash */
export function isListHash(hash) {
  return hash === '' || hash === '#' || hash === '#/' || hash.startsWith('#/?') || hash.startsWith('#?');
}

/** @param {string} hash @returns {ListView} */
export function listViewOf(hash) {
  const p = paramsOf(hash);
  return {
    q: p.get('q') ?? '',
    flavor: p.get('agent') ?? '',
    state: p.get('state') ?? '',
    project: p.get('project') ?? '',
    needsYou: p.get('needs') === '1',
    order: p.get('order') === 'created' ? 'created' : 'activity',
  };
}

/** @param {ListView} view @returns {string} the hash, `#/` for the plain list */
export function listHashOf(view) {
  const p = new URLSearchParams();
  if (view.q) p.set('q', view.q);
  if (view.flavor) p.set('agent', view.flavor);
  if (view.state) p.set('state', view.state);
  if (view.project) p.set('project', view.project);
  if (view.needsYou) p.set('needs', '1');
  if (view.order === 'created') p.set('order', 'created');
  const query = p.toString();
  return query ? `#/?${query}` : '#/';
}

/** The usage view's own settings. @param {string} hash */
export function usageViewOf(hash) {
  const p = paramsOf(hash);
  return { days: p.get('days') ?? '30', by: p.get('by') ?? 'day' };
}

/** @param {{ days: string, by: string }} view */
export function usageHashOf(view) {
  const p = new URLSearchParams();
  if (view.days !== '30') p.set('days', view.days);
  if (view.by !== 'day') p.set('by', view.by);
  const query = p.toString();
  return query ? `#/usage?${query}` : '#/usage';
}

/** Puts `hash` in the address without a history entry or a hashchange. @param {string} hash */
export function replaceHash(hash) {
  if (location.hash === hash || (hash === '#/' && !location.hash)) return;
  history.replaceState(history.state, '', `${location.pathname}${location.search}${hash}`);
  lastListHash = isListHash(hash) ? hash : lastListHash;
}

/** Where "← All sessions" goes back to: the list as it was last filtered in this page. */
let lastListHash = isListHash(location.hash) ? location.hash || '#/' : '#/';
export const backToList = () => lastListHash;
