// @ts-check
/**
 * The sessions: "needs you" first, then the list. Without a search or filter, the live list (the
 * SDK's map, ordered by last activity by default), shown a window at a time; with one, the hub's
 * HTTP list (`GET /api/sessions?q&flavor&state&project&sort=activity`), a page at a time. The search,
 * filters and order live in the address (route.js): a link reopens the same view.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { html } from '../html.js';
import { mayDecide } from '../auth.js';
import { useNow, useStore } from '../hooks.js';
import { flavorName, lastPathPart, messageOf, projectPath } from '../format.js';
import { LIFECYCLE_STATE } from '../words.js';
import { HOOK_INSTALLABLE } from '../flavors.js';
import { LIST_DEFAULTS, isListHash, listHashOf, listViewOf, replaceHash } from '../route.js';
import { NeedsYou } from './needs-you.js';
import { ReadyList } from './ready-list.js';
import { SessionRow } from './session-row.js';

/** Rows the live list shows before "Show more": the DOM stays small with 10,000 sessions. */
const WINDOW = 100;
const PAGE = 50;
const TYPING_MS = 250;

/** @typedef {import('../sessions.js').SessionSnapshot} SessionSnapshot */
/** @typedef {{ q: string, flavor: string, state: string, project: string, needsYou: boolean }} Filters */

const { order: _order, ...NO_FILTERS } = LIST_DEFAULTS;

/** The hub answers these; "needs you" is read from the live map. @param {Filters} f */
const asksHub = (f) => Boolean(f.q.trim() || f.flavor || f.state || f.project);

/**
 * @param {{ store: import('../sessions.js').SessionView, api: import('../api.js').Api, role: string | null,
 *   hub: import('../format.js').HubHost | null }} props
 */
export function SessionList({ store, api, role, hub }) {
  useStore(store);
  const now = useNow();
  const [view, setView] = useState(() => listViewOf(location.hash));
  const { order, ...filters } = view;
  const [shown, setShown] = useState(WINDOW);
  const search = useSearch(api, filters);
  /** @param {Partial<import('../route.js').ListView>} change */
  const filter = (change) => {
    setView((v) => ({ ...v, ...change }));
    setShown(WINDOW);
  };
  useEffect(() => replaceHash(listHashOf(view)), [view]);
  // a link or the back button to another filtered list
  useEffect(() => {
    const onHash = () => isListHash(location.hash) && setView(listViewOf(location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  const live = store.list(/** @type {import('../sessions.js').SortOrder} */ (order));
  // the projects offered: recomputed when sessions come or go, not on every change of one
  const projects = useMemo(() => [...new Set(live.map((s) => projectPath(s.metadata.value)).filter(Boolean))].sort(), [live.length]);
  // the agents offered: those with a session in this namespace (and the one a link asked for)
  const flavors = useMemo(
    () => [...new Set([...live.map((s) => s.flavor), ...(filters.flavor ? [filters.flavor] : [])])].sort((a, b) => flavorName(a).localeCompare(flavorName(b))),
    [live.length, filters.flavor],
  );
  /** @param {SessionSnapshot} s */
  const needsYouOnly = (s) => !filters.needsYou || (store.get(s.sid) ?? s).activity === 'waiting';
  const searching = asksHub(filters);
  const rows = (searching ? search.sessions.map((s) => store.get(s.sid) ?? s) : live).filter(needsYouOnly);
  const visible = searching ? rows : rows.slice(0, shown);
  /** @param {Event} e */
  const value = (e) => /** @type {HTMLInputElement | HTMLSelectElement} */ (e.currentTarget).value;

  return html`${!searching && !filters.needsYou && html`<${NeedsYou} store=${store} api=${api} role=${role} hub=${hub} now=${now} /><${ReadyList} store=${store} now=${now} />`}
  <section id="list">
    <div class="list-head">
      <h2>Sessions <span class="count" id="list-count">${searching ? `${rows.length}${search.nextCursor ? '+' : ''}` : rows.length}</span></h2>
      <label class="sort">Order
        <select id="sort" value=${order} disabled=${searching} onChange=${(/** @type {Event} */ e) => filter({ order: value(e) })}>
          <option value="activity">last activity</option>
          <option value="created">newest</option>
        </select>
      </label>
    </div>
    <form class="filters" role="search" onSubmit=${(/** @type {Event} */ e) => e.preventDefault()}>
      <input id="search" type="search" placeholder="Search title, tag, folder, prompt" aria-label="Search sessions"
        value=${filters.q} onInput=${(/** @type {Event} */ e) => filter({ q: value(e) })} />
      <select id="filter-agent" aria-label="Agent" value=${filters.flavor} onChange=${(/** @type {Event} */ e) => filter({ flavor: value(e) })}>
        <option value="">any agent</option>
        ${flavors.map((id) => html`<option value=${id}>${flavorName(id)}</option>`)}
      </select>
      <select id="filter-state" aria-label="State" value=${filters.state} onChange=${(/** @type {Event} */ e) => filter({ state: value(e) })}>
        <option value="">any state</option>
        ${Object.entries(LIFECYCLE_STATE).map(([id, name]) => html`<option value=${id}>${name}</option>`)}
      </select>
      <select id="filter-project" aria-label="Project" value=${filters.project} onChange=${(/** @type {Event} */ e) => filter({ project: value(e) })}>
        <option value="">any project</option>
        ${projects.map((p) => html`<option value=${p} title=${p}>${lastPathPart(p)}</option>`)}
      </select>
      <label class="check"><input id="filter-needs-you" type="checkbox" checked=${filters.needsYou}
        onChange=${(/** @type {Event} */ e) => filter({ needsYou: /** @type {HTMLInputElement} */ (e.currentTarget).checked })} /> needs you</label>
      ${(asksHub(filters) || filters.needsYou) && html`<button id="filter-clear" type="button" onClick=${() => filter({ ...NO_FILTERS, order })}>Clear</button>`}
    </form>
    ${searching && search.error && html`<p class="error" id="search-error">${search.error}</p>`}
    ${visible.length
      ? html`<ol id="sessions" class="sessions" data-source=${searching ? 'search' : 'live'}>${visible.map((s) => html`<${SessionRow} key=${s.sid} session=${s} hub=${hub} now=${now} />`)}</ol>`
      : searching && search.loading
        ? html`<p class="muted">Searching…</p>`
        : searching || filters.needsYou
          ? html`<p id="list-empty" class="muted">No session matches.</p>`
          : html`<p id="list-empty" class="muted">${firstRunHint(role)}</p>`}
    ${!searching && rows.length > shown && html`<button id="show-more" class="more" type="button" onClick=${() => setShown(shown + WINDOW)}>
      Show more (${rows.length - shown} more)</button>`}
    ${searching && search.nextCursor && html`<button id="load-more" class="more" type="button" disabled=${search.loading} onClick=${search.more}>Load more</button>`}
  </section>`;
}

/**
 * What an empty hub says: how agents get here. From a computer's machine runner for those who may
 * start agents (operator, admin), else through an agent's hooks, which the registry names.
 * @param {string | null} role
 */
function firstRunHint(role) {
  const [first, ...others] = HOOK_INSTALLABLE;
  const hooks = html`run <code>session-hub hook install ${first ?? '<agent>'}</code>${others.length ? ` (or ${others.join(', ')})` : ''} where you use the agent in a terminal.`;
  return html`No sessions yet. An agent shows here once it reports: ${mayDecide(role) ? html`start one on a computer from <a href="#/machines">Machines</a> (its <code>session-hub runner</code>), or ${hooks}` : hooks}`;
}

/**
 * The HTTP list for the current filters, newest activity first: the first page after the typing
 * pauses, further pages on `more()`. An answer to an older query is dropped.
 * @param {import('../api.js').Api} api
 * @param {Filters} filters
 */
function useSearch(api, filters) {
  const [state, setState] = useState(/** @type {{ sessions: SessionSnapshot[], nextCursor: string | null, loading: boolean, error: string }} */ ({ sessions: [], nextCursor: null, loading: false, error: '' }));
  const query = useMemo(
    () => ({ q: filters.q.trim() || undefined, flavor: filters.flavor || undefined, state: filters.state || undefined, project: filters.project || undefined, sort: 'activity', limit: PAGE }),
    [filters.q, filters.flavor, filters.state, filters.project],
  );
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    if (!asksHub(filters)) return;
    let current = true;
    setState((s) => ({ ...s, loading: true, error: '' }));
    const timer = setTimeout(
      () =>
        api.sessions(query).then(
          (body) => current && setState({ sessions: body.sessions, nextCursor: body.nextCursor, loading: false, error: '' }),
          (err) => current && setState({ sessions: [], nextCursor: null, loading: false, error: messageOf(err) }),
        ),
      TYPING_MS,
    );
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [api, query, generation]);

  function more() {
    if (!state.nextCursor) return;
    const cursor = state.nextCursor;
    setState((s) => ({ ...s, loading: true }));
    api.sessions({ ...query, cursor }).then(
      (body) => setState((s) => (s.nextCursor === cursor ? { sessions: [...s.sessions, ...body.sessions], nextCursor: body.nextCursor, loading: false, error: '' } : s)),
      (err) => setState((s) => ({ ...s, loading: false, error: messageOf(err) })),
    );
  }
  return { ...state, more, retry: () => setGeneration((g) => g + 1) };
}
