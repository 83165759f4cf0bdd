// @ts-check
/**
 * Opt-ins for being told when a session needs you: browser notifications while the page is open
 * (shown only where the API exists and permission is not denied), and Web Push when the page has
 * its push module (hub/dashboard/push.js, `enablePush(token)` / `disablePush()`): the module is
 * loaded on demand and, where it is missing, the button is simply not shown.
 */
import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';
import { messageOf } from '../format.js';
import { canOfferNotifications, disableNotifications, enableNotifications, notificationsOn } from '../notify.js';

/** @typedef {{ enablePush: (token: string) => Promise<unknown>, disablePush: () => Promise<unknown> }} PushModule */

/** Loads ./push.js once; null where it is not there (not merged yet, or push not supported). */
let pushModule = /** @type {Promise<PushModule | null> | null} */ (null);
/** A URL, not a literal specifier: the module may not exist yet, and the typecheck must not look for it. */
const PUSH_URL = new URL('../push.js', import.meta.url).href;
function loadPush() {
  if (!('serviceWorker' in navigator) || !('PushManager' in window)) return Promise.resolve(null);
  pushModule ??= fetch(PUSH_URL, { method: 'HEAD' })
    .then((res) => (res.ok ? import(PUSH_URL) : null))
    .then((mod) => (mod && typeof mod.enablePush === 'function' && typeof mod.disablePush === 'function' ? /** @type {PushModule} */ (mod) : null))
    .catch(() => null);
  return pushModule;
}

/** @param {{ token: string }} props */
export function NotifyButtons({ token }) {
  const [on, setOn] = useState(notificationsOn);
  const [push, setPush] = useState(/** @type {PushModule | null} */ (null));
  const [pushOn, setPushOn] = useState(false);
  const [error, setError] = useState('');
  useEffect(() => {
    loadPush().then(setPush);
  }, []);

  async function toggleNotifications() {
    if (on) {
      disableNotifications();
      setOn(false);
    } else setOn(await enableNotifications());
  }
  async function togglePush() {
    if (!push) return;
    setError('');
    try {
      if (pushOn) await push.disablePush();
      else await push.enablePush(token);
      setPushOn(!pushOn);
    } catch (err) {
      setError(messageOf(err));
    }
  }

  return html`<span class="notify">
    ${canOfferNotifications() &&
    html`<button id="notify-toggle" type="button" aria-pressed=${on} onClick=${toggleNotifications}
      title="Tell me in this browser when a session needs me, while this page is open">${on ? 'Notifications on' : 'Notify me'}</button>`}
    ${push && html`<button id="push-toggle" type="button" aria-pressed=${pushOn} onClick=${togglePush}
      title="Tell me even when this page is closed (Web Push)">${pushOn ? 'Push on' : 'Push'}</button>`}
    ${error && html`<span class="error">${error}</span>`}
  </span>`;
}
