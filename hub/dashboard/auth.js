// @ts-check
/**
 * The signed-in token. Kept in sessionStorage (gone when the tab closes) unless the user ticks
 * "remember me", which keeps it in localStorage. A token never travels in a URL the browser
 * navigates to (a history entry would keep it): the form takes it, or the start-up link's one-time
 * `?code=` is exchanged for it by POST. A `?token=` in the address is not used: it is removed.
 */

const KEY = 'sessionHub.token';

/** The roles whose tokens may decide approvals and start, continue or stop agents (shared/protocol/auth.ts DECIDING_ROLES). */
const DECIDING_ROLES = Object.freeze(['operator', 'admin']);

/** @param {string | null} role the signed-in token's role */
export function mayDecide(role) {
  return DECIDING_ROLES.includes(role ?? '');
}

/** @param {Storage} storage @param {(s: Storage) => unknown} fn */
function tryStorage(storage, fn) {
  try {
    return fn(storage);
  } catch {
    // storage disabled (private mode): the token lives for this page load only
    return null;
  }
}

/** @returns {string | null} */
export function loadToken() {
  const session = /** @type {string | null} */ (tryStorage(sessionStorage, (s) => s.getItem(KEY)));
  const remembered = /** @type {string | null} */ (tryStorage(localStorage, (s) => s.getItem(KEY)));
  return session || remembered || null;
}

/**
 * @param {string} token
 * @param {boolean} remember keep it after the tab closes (localStorage)
 */
export function saveToken(token, remember) {
  clearToken();
  tryStorage(remember ? localStorage : sessionStorage, (s) => s.setItem(KEY, token));
}

export function clearToken() {
  tryStorage(sessionStorage, (s) => s.removeItem(KEY));
  tryStorage(localStorage, (s) => s.removeItem(KEY));
}

/**
 * What the address brings for sign-in, taken out of the address bar: the start-up link's one-time
 * `code`, and whether an old-style `?token=` link was opened (refused: it would stay in history).
 * @returns {{ code: string | null, tokenInUrl: boolean }}
 */
export function takeSignInFromUrl() {
  const url = new URL(location.href);
  const code = url.searchParams.get('code');
  const tokenInUrl = url.searchParams.has('token');
  if (code == null && !tokenInUrl) return { code: null, tokenInUrl: false };
  url.searchParams.delete('code');
  url.searchParams.delete('token');
  history.replaceState(history.state, '', url.pathname + url.search + url.hash);
  return { code: code?.trim() || null, tokenInUrl };
}

/**
 * Exchanges the start-up link's code for a token (POST /api/sign-in/code).
 * @param {string} code
 * @returns {Promise<string>} the token
 */
export async function exchangeCode(code) {
  let res;
  try {
    res = await fetch('/api/sign-in/code', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ code }) });
  } catch (err) {
    throw new Error(`The hub did not answer (${err instanceof Error ? err.message : String(err)})`);
  }
  const data = await res.json().catch(() => null);
  if (res.ok && typeof data?.token === 'string') return data.token;
  throw new Error(typeof data?.message === 'string' ? data.message : `The hub refused the sign-in link (${res.status})`);
}
