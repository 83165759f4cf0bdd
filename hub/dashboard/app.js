// @ts-check
/**
 * The dashboard page's entry: sign-in, the live link, and switching between the session table
 * and one session's detail view (`#/s/<sid>`).
 */
import { byId, replace } from './dom.js';
import { clearToken, loadToken, saveToken } from './auth.js';
import { ApiError, createApi } from './api.js';
import { SessionView } from './sessions.js';
import { connectLive } from './live.js';
import { createTable } from './table.js';
import { openDetail } from './detail.js';

/**
 * @typedef {import('./live.js').LinkState} LinkState
 * @typedef {import('./detail.js').Role} Role
 */

const TICK_MS = 10_000;
const RESUME_REFETCH_MS = 300;

const views = {
  signin: byId('signin'),
  refused: byId('refused'),
  list: byId('list'),
  detail: byId('detail'),
};
const conn = byId('conn');
const who = byId('who');
const signout = byId('signout');

/**
 * Everything that lives while signed in.
 * @type {null | { api: import('./api.js').Api, store: SessionView, live: { close(): void }, role: Role,
 *   detail: { close(): void } | null, timers: Array<ReturnType<typeof setInterval>>, refused: boolean }}
 */
let current = null;

/** @param {keyof typeof views} name */
function show(name) {
  for (const [key, el] of Object.entries(views)) el.hidden = key !== name;
}

/**
 * @param {LinkState | 'signed-out'} state
 * @param {string} [detail]
 */
function setConn(state, detail) {
  conn.dataset.state = state;
  conn.title = detail ?? '';
  replace(conn, state === 'signed-out' ? 'signed out' : state);
}

/** @param {string} [message] */
function showSignIn(message) {
  setConn('signed-out');
  replace(who);
  signout.hidden = true;
  replace(byId('signin-error'), message ?? '');
  show('signin');
  /** @type {HTMLInputElement} */ (byId('token-input')).focus();
}

/** @param {string} code 'unauthorized' | 'forbidden' | another connect_error message */
function showRefused(code) {
  if (!current || current.refused) return;
  current.refused = true;
  current.live.close();
  setConn('refused', code);
  const text =
    code === 'unauthorized'
      ? 'The hub refused this token (unauthorized): it is unknown or was revoked.'
      : code === 'forbidden'
        ? 'This token may not open the dashboard (forbidden).'
        : `The hub refused the connection: ${code}`;
  replace(byId('refused-message'), text);
  show('refused');
}

/** @param {string} token */
function start(token) {
  const api = createApi(token);
  const store = new SessionView();
  const table = createTable({
    tbody: byId('rows'),
    empty: byId('list-empty'),
    store,
    onOpen: (sid) => {
      location.hash = `#/s/${encodeURIComponent(sid)}`;
    },
  });
  const live = connectLive({
    token,
    view: store,
    onState: (state, detail) => {
      if (state === 'refused') showRefused(detail ?? 'unauthorized');
      else if (!current?.refused) setConn(state, detail);
    },
  });
  current = { api, store, live, role: null, detail: null, timers: [], refused: false };
  current.timers.push(setInterval(() => table.tick(), TICK_MS));
  watchResume(api, store);
  signout.hidden = false;
  route();

  api.whoami().then(
    (me) => {
      if (!current || current.api !== api) return;
      current.role = me.role;
      replace(who, `${me.role} · ${me.namespace}`);
      who.dataset.role = me.role;
      route(); // the detail view's actions depend on the role
    },
    (err) => {
      if (err instanceof ApiError && (err.code === 'unauthorized' || err.status === 401)) showRefused('unauthorized');
    },
  );
}

/**
 * `update` bodies do not carry the resume status; after a metadata or lifecycle change,
 * fetch the snapshot and take its resume status.
 * @param {import('./api.js').Api} api
 * @param {SessionView} store
 */
function watchResume(api, store) {
  /** @type {Map<string, ReturnType<typeof setTimeout>>} */
  const due = new Map();
  store.onResumeStale((sid) => {
    if (due.has(sid)) return;
    due.set(
      sid,
      setTimeout(() => {
        due.delete(sid);
        api.session(sid).then((snapshot) => store.setResume(snapshot), () => {});
      }, RESUME_REFETCH_MS),
    );
  });
}

function stop() {
  if (!current) return;
  current.live.close();
  current.detail?.close();
  for (const timer of current.timers) clearInterval(timer);
  current = null;
  replace(byId('rows'));
}

function signOut() {
  stop();
  clearToken();
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  showSignIn();
}

function route() {
  if (!current || current.refused) return;
  current.detail?.close();
  current.detail = null;
  const match = /^#\/s\/(.+)$/.exec(location.hash);
  if (!match) {
    show('list');
    return;
  }
  const sid = decodeURIComponent(match[1] ?? '');
  current.detail = openDetail({ root: views.detail, sid, store: current.store, api: current.api, role: current.role });
  show('detail');
  window.scrollTo(0, 0);
}

byId('signin-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = /** @type {HTMLInputElement} */ (byId('token-input'));
  const token = input.value.trim();
  if (!token) {
    replace(byId('signin-error'), 'Enter a token.');
    return;
  }
  input.value = '';
  saveToken(token);
  start(token);
});
signout.addEventListener('click', signOut);
byId('refused-signout').addEventListener('click', signOut);
window.addEventListener('hashchange', route);

const token = loadToken();
if (token) start(token);
else showSignIn();
