// @ts-check
/** The signed-in token: kept in localStorage; `?token=` in the address also signs in, then is removed. */

const KEY = 'sessionHub.token';

/** @returns {string | null} */
export function loadToken() {
  const fromUrl = takeTokenFromUrl();
  if (fromUrl) saveToken(fromUrl);
  try {
    return localStorage.getItem(KEY) || null;
  } catch {
    return fromUrl;
  }
}

/** @param {string} token */
export function saveToken(token) {
  try {
    localStorage.setItem(KEY, token);
  } catch {
    // Private mode without storage: the token lives for this page load only.
  }
}

export function clearToken() {
  try {
    localStorage.removeItem(KEY);
  } catch {
    // nothing stored
  }
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
