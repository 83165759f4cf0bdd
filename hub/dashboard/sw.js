// @ts-check
/// <reference lib="webworker" />
/**
 * The dashboard's service worker (served at /sw.js, scope /): shows the hub's Web Push pings while
 * the page is closed, and a click opens the page at that session. A push's data is the JSON the hub
 * sends (shared/protocol/push.ts, PushPayloadSchema): { title, body, sid, kind, url, since }.
 */
const sw = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));

sw.addEventListener('install', () => sw.skipWaiting());
// pages already open become controlled, so a click can navigate them
sw.addEventListener('activate', (event) => event.waitUntil(sw.clients.claim()));

/**
 * The push's JSON, or a generic ping when it carries none or something unreadable.
 * @param {PushMessageData | null} data
 */
function readPayload(data) {
  try {
    const payload = data?.json();
    if (payload && typeof payload.title === 'string') return payload;
  } catch {
    // not JSON: fall through
  }
  return { title: 'Session Hub', body: 'A session needs you', sid: null, kind: null, url: '/' };
}

sw.addEventListener('push', (event) => {
  const payload = readPayload(event.data);
  event.waitUntil(
    sw.registration.showNotification(payload.title, {
      body: payload.body,
      // one notification per session: a newer attention replaces the older one, and rings again
      tag: payload.sid ? `session-${payload.sid}` : 'session-hub',
      renotify: true,
      timestamp: typeof payload.since === 'number' ? payload.since : Date.now(),
      data: { sid: payload.sid, url: payload.url, kind: payload.kind },
    }),
  );
});

/** @param {string} url */
async function openAt(url) {
  const target = new URL(url, sw.registration.scope);
  const windows = await sw.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((client) => new URL(client.url).origin === target.origin);
  if (!open) return sw.clients.openWindow(target.href);
  // a page this worker controls can be navigated; any other is told (push.js listens) and focused
  if (open.url !== target.href) {
    try {
      await open.navigate(target.href);
    } catch {
      open.postMessage({ type: 'open-session', url: target.href });
    }
  }
  return open.focus();
}

sw.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = typeof event.notification.data?.url === 'string' ? event.notification.data.url : '/';
  event.waitUntil(openAt(url));
});
