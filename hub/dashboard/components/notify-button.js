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

  // one labelled group: the two opt-ins differ only in when they reach you (issue 34)
  const offered = canOfferNotifications() || push;
  return html`<span class="notify" role="group" aria-labelledby="notify-label">
    ${offered && html`<span id="notify-label" class="notify-label">Alert me</span>`}
    ${canOfferNotifications() &&
    html`<button id="notify-toggle" type="button" aria-pressed=${on} onClick=${toggleNotifications}
      title="A browser notification when a session needs you, while this page is open in a tab">${on ? '✓ while open' : 'while open'}</button>`}
    ${push && html`<button id="push-toggle" type="button" aria-pressed=${pushOn} onClick=${togglePush}
      title="A notification even when this page is closed (Web Push through your browser's push service)">${pushOn ? '✓ when closed' : 'when closed'}</button>`}
    ${error && html`<span class="error">${error}</span>`}
  </span>`;
}
