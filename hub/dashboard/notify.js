// @ts-check
/**
 * Browser notifications while the page is open (the Notification API): one per session per
 * attention change, titled with the session's title, its body the attention in plain words. Opt-in
 * is remembered in localStorage; attention already set when watching starts is not announced (a
 * reload must not repeat what the person was told).
 */
import { attentionKey, sayAttention } from './attention.js';

const OPT_IN_KEY = 'session-hub.notify';

/** Where the page can offer notifications: the API exists and the person has not refused them. */
export function canOfferNotifications() {
  return typeof Notification !== 'undefined' && Notification.permission !== 'denied';
}

export function notificationsOn() {
  return typeof Notification !== 'undefined' && Notification.permission === 'granted' && localStorage.getItem(OPT_IN_KEY) === 'on';
}

/** Asks the browser's permission (one click) and remembers the opt-in. @returns {Promise<boolean>} */
export async function enableNotifications() {
  const permission = await Notification.requestPermission();
  if (permission === 'granted') localStorage.setItem(OPT_IN_KEY, 'on');
  return permission === 'granted';
}

export function disableNotifications() {
  localStorage.removeItem(OPT_IN_KEY);
}

/**
 * Watches the store and notifies each new attention once. Until `prime()` (the first subscribe is
 * answered), attention is recorded as known, not announced.
 * @param {import('./sessions.js').SessionView} store
 */
export function watchAttention(store) {
  /** @type {Set<string>} */
  const told = new Set();
  let primed = false;
  /** @param {import('./sessions.js').SessionSnapshot | undefined} session */
  function look(session) {
    const key = session && attentionKey(session);
    if (!session?.attention || !key || told.has(key)) return;
    told.add(key);
    if (primed && notificationsOn()) new Notification(session.title, { body: sayAttention(session.attention), tag: session.sid });
  }
  const stop = store.subscribe((change) => {
    if (change.kind === 'reset') for (const session of store.list()) look(session);
    else for (const sid of change.sids) look(store.get(sid));
  });
  return {
    stop,
    prime() {
      primed = true;
    },
  };
}
