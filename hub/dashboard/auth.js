// @ts-check
/**
 * The signed-in token. Kept in sessionStorage (gone when the tab closes) unless the user ticks
 * "remember me", which keeps it in localStorage. `?token=` in the address also signs in (for this
 * tab only), then is removed from the address bar.
 */

const KEY = 'sessionHub.token';

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
  const fromUrl = takeTokenFromUrl();
  if (fromUrl) {
    saveToken(fromUrl, false);
    return fromUrl;
  }
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

/** Reads `?token=` and strips it from the address bar so it is not bookmarked or shared. */
function takeTokenFromUrl() {
  const url = new URL(location.href);
  const token = url.searchParams.get('token');
  if (token == null) return null;
  url.searchParams.delete('token');
  history.replaceState(history.state, '', url.pathname + url.search + url.hash);
  return token.trim() || null;
}
