// @ts-check
/**
 * Web Push for the dashboard (docs/attention.md, "Browser push"): `enablePush(token)` registers the
 * service worker (/sw.js), subscribes with the hub's VAPID key and stores the subscription at the
 * hub under that token; `disablePush()` undoes both. The page's own UI calls them (one click opts in:
 * the browser asks for notification permission from that click).
 */

const WORKER_URL = '/sw.js';

/** @type {string | undefined} the token enablePush last used: disablePush removes the subscription with it */
let lastToken;

/**
 * @param {string} token
 * @param {'GET' | 'POST' | 'DELETE'} method
 * @param {string} path
 * @param {unknown} [body]
 */
async function call(token, method, path, body) {
  /** @type {Record<string, string>} */
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.message ?? `${method} ${path} answered ${response.status}`);
  return answer;
}

/** @param {string} base64url */
function keyBytes(base64url) {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  return Uint8Array.from(atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, '=')), (c) => c.charCodeAt(0));
}

/**
 * @param {ArrayBuffer | null | undefined} held
 * @param {Uint8Array} wanted
 */
function sameKey(held, wanted) {
  if (!held) return false;
  const bytes = new Uint8Array(held);
  return bytes.length === wanted.length && bytes.every((b, i) => b === wanted[i]);
}

/** True when this browser can receive web pushes at all. */
export function pushSupported() {
  return 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
}

/**
 * Turns pushes on for this browser under `token` (dashboard, operator or admin). Call it from a
 * click: the browser asks the person for notification permission. Throws with a readable message
 * when the browser cannot, the person says no, or the hub refuses.
 * @param {string} token
 * @returns {Promise<PushSubscription>}
 */
export async function enablePush(token) {
  if (!pushSupported()) throw new Error('this browser cannot receive web pushes');
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') throw new Error(`notifications are ${permission === 'denied' ? 'blocked' : 'not allowed'} for this page`);
  await navigator.serviceWorker.register(WORKER_URL, { scope: '/' });
  const registration = await navigator.serviceWorker.ready;
  const { publicKey } = await call(token, 'GET', '/api/push/key');
  const key = keyBytes(publicKey);
  let subscription = await registration.pushManager.getSubscription();
  // a subscription made with another key (the hub's keys changed) is refused by the push service
  if (subscription && !sameKey(subscription.options.applicationServerKey, key)) {
    await subscription.unsubscribe();
    subscription = null;
  }
  subscription ??= await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  await call(token, 'POST', '/api/push/subscriptions', subscription.toJSON());
  lastToken = token;
  return subscription;
}

/**
 * Turns pushes off for this browser: the hub forgets the subscription (with `token`, else the one
 * enablePush used) and the browser drops it. Does nothing when there is none.
 * @param {string} [token]
 */
export async function disablePush(token = lastToken) {
  if (!pushSupported()) return;
  const registration = await navigator.serviceWorker.getRegistration(WORKER_URL);
  const subscription = await registration?.pushManager.getSubscription();
  if (!subscription) return;
  if (token) await call(token, 'DELETE', '/api/push/subscriptions', { endpoint: subscription.endpoint }).catch(() => undefined);
  await subscription.unsubscribe();
}

// a notification clicked while this page is open but not controlled by the worker: go to the session
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.addEventListener('message', (event) => {
    const data = event.data;
    if (data?.type === 'open-session' && typeof data.url === 'string' && new URL(data.url).origin === location.origin) {
      location.href = data.url;
    }
  });
}
