// @ts-check
/**
 * Talking to the agent (docs/messages.md): a reply box (operator and admin tokens), the session's
 * messages with their states (queued, delivered and how, cancelled, expired), Cancel while queued,
 * and one line saying when a reply reaches the agent: now, at its next stop, or once it runs again.
 * Fetched over HTTP, then kept current by the live `message` bodies.
 */
import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';
import { ClampedText } from './clamped-text.js';
import { messageOf } from '../format.js';
import { mayDecide } from '../auth.js';
import { RelTime } from './rel-time.js';
import { ApiError } from '../api.js';
import { useHubOnline } from '../hub-link.js';
import { putMessage } from '../message-list.js';

/** @typedef {import('../../../shared/protocol/messages.js').Message} Message */

/** How a delivered message reached the agent, in plain words. */
function viaWords(/** @type {string | null} */ via) {
  if (!via) return '';
  // which process took it (a runner's pid) is in the tooltip: a person reads where it went
  if (via === 'runner') return 'to the agent';
  if (via.startsWith('hook:')) return `at its ${via.slice(5)}`;
  if (via.startsWith('wake:')) return 'woke the agent';
  return via;
}

/**
 * When a reply reaches the agent: `later` (the session ended: once it runs again), `next-stop` (the
 * agent is working, or nothing can wake it: its stop hook hands it over), `now` (it waits and its
 * runner or waking hook takes it at once). `reach` and `wakeUntil` are the hub's (GET …/messages):
 * `wake` only while a waking hook waits on the hub now, until `wakeUntil`, which `now` (the page's
 * clock) passes while it shows; the page reads them again every REACH_REFRESH_MS, since a waiter
 * starting, reconnecting or dying changes no session field.
 * @param {{ lifecycle: { state: string }, activity: string }} session
 * @param {{ reach: 'runner' | 'wake' | 'stop', wakeUntil?: number }} reach
 * @param {number} now
 */
export function deliveryOf(session, { reach, wakeUntil }, now) {
  if (session.lifecycle.state === 'ended' || session.lifecycle.state === 'archived' || session.activity === 'ended' || session.activity === 'lost') return 'later';
  if (reach === 'runner') return 'now';
  if (session.activity === 'working' || reach === 'stop') return 'next-stop';
  return wakeUntil === undefined || now < wakeUntil ? 'now' : 'next-stop';
}

/** @param {'now' | 'next-stop' | 'later'} delivery @param {string} activity @param {number | undefined} wakeUntil */
function deliveryWords(delivery, activity, wakeUntil) {
  if (delivery === 'now') return wakeUntil === undefined ? 'A reply reaches the agent now.' : `A reply reaches the agent now (its hook waits for one until ${clockTime(wakeUntil)}).`;
  if (delivery === 'later') return 'The session is not running: a reply waits here and reaches the agent once it runs again (for up to a day).';
  if (activity === 'working') return 'The agent is working: a reply reaches it at its next stop.';
  return wakeUntil === undefined
    ? 'A reply reaches the agent at its next stop: no hook of it waits for one now.'
    : `A reply reaches the agent at its next stop: its hook stopped waiting for one at ${clockTime(wakeUntil)}.`;
}

/** How often the page reads the reach again while a session is open (a waiter's start or end changes no session field). */
const REACH_REFRESH_MS = 5000;

/** A time of today as the person's clock shows it (hours and minutes). */
const clockTime = (/** @type {number} */ at) => new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

/**
 * @param {import('../api.js').Api} api
 * @param {import('../sessions.js').SessionView} store
 * @param {string} sid
 * @param {string} activity the session's live activity (a change reads the reach again)
 */
function useMessages(api, store, sid, activity) {
  const [messages, setMessages] = useState(/** @type {Message[] | null} */ (null));
  const [reach, setReach] = useState(/** @type {{ reach: 'runner' | 'wake' | 'stop', wakeUntil?: number }} */ ({ reach: 'stop' }));
  const [error, setError] = useState('');
  /** @param {Message} message */
  const put = (message) => setMessages((list) => putMessage(list, message));
  useEffect(() => {
    let closed = false;
    const stop = store.onMessage((message) => message.sid === sid && put(message));
    api.messages(sid).then(
      (body) => closed || (setReach({ reach: body.reach, ...(body.wakeUntil === undefined ? {} : { wakeUntil: body.wakeUntil }) }), setMessages((live) => {
        const byId = new Map(body.messages.map((m) => [m.id, m]));
        // a live change newer than the fetch wins (a state only moves away from queued)
        for (const m of live ?? []) if (m.state !== 'queued' || !byId.has(m.id)) byId.set(m.id, m);
        return [...byId.values()].sort((a, b) => a.createdAt - b.createdAt);
      })),
      (err) => closed || setError(messageOf(err)),
    );
    // a waiter comes and goes without a session change: read the reach again now and then
    const refresh = setInterval(() => {
      api.messages(sid).then(
        (body) => closed || setReach({ reach: body.reach, ...(body.wakeUntil === undefined ? {} : { wakeUntil: body.wakeUntil }) }),
        () => {},
      );
    }, REACH_REFRESH_MS);
    return () => {
      closed = true;
      clearInterval(refresh);
      stop();
    };
    // read again when the session's activity changes: a stop starts a new waiter (a new wakeUntil),
    // a runner coming or going changes how a reply gets there
  }, [api, store, sid, activity]);
  return { messages, reach, error, put };
}

/**
 * `continueHere`: the session is over and a machine can continue it: its one text box is Continue's
 * (machine-actions.js), which resumes the agent with it; a reply here would only wait (issue 46).
 * @param {{ sid: string, store: import('../sessions.js').SessionView, api: import('../api.js').Api, role: string | null, now: number,
 *   continueHere?: boolean }} props
 */
export function MessagePanel({ sid, store, api, role, now, continueHere = false }) {
  const { messages, reach, error, put } = useMessages(api, store, sid, store.get(sid)?.activity ?? '');
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [problem, setProblem] = useState('');
  /** The problem was the hub out of reach: it goes once the link is back. */
  const [problemIsLink, setProblemIsLink] = useState(false);
  const online = useHubOnline();
  useEffect(() => {
    if (online && problemIsLink) {
      setProblem('');
      setProblemIsLink(false);
    }
  }, [online]);
  const session = store.get(sid);
  const canSend = mayDecide(role);
  const delivery = session ? deliveryOf(session, reach, now) : 'later';
  const boxIsContinue = canSend && continueHere && delivery === 'later';

  async function send(/** @type {Event} */ event) {
    event.preventDefault();
    if (!text.trim()) return setProblem('Write something first.');
    setSending(true);
    setProblem('');
    try {
      put((await api.sendMessage(sid, text)).message);
      setText('');
    } catch (err) {
      setProblem(messageOf(err));
      setProblemIsLink(err instanceof ApiError && err.code === 'network');
    } finally {
      setSending(false);
    }
  }

  async function cancel(/** @type {Message} */ message) {
    try {
      put((await api.cancelMessage(sid, message.id)).message);
    } catch (err) {
      setProblem(messageOf(err));
      api.messages(sid).then((body) => body.messages.forEach(put), () => {});
    }
  }

  // the Continue card above is the one place to write: no second box, nor an empty panel
  if (boxIsContinue && online && !error && !messages?.length) return null;
  return html`<section class="messages-panel" id="session-messages" aria-label="Talk to the agent">
    <h3>Talk to the agent</h3>
    <p class="delivery muted" data-delivery=${online ? delivery : 'unknown'} data-reach=${reach.reach}>${!online ? 'The hub is out of reach: a reply cannot be sent until the page is connected again.' : boxIsContinue ? 'The session is not running: write your next prompt under Continue, which starts the agent again with it.' : deliveryWords(delivery, session?.activity ?? '', reach.wakeUntil)}</p>
    ${boxIsContinue
      ? null
      : canSend
      ? html`<form class="reply" onSubmit=${send}>
          <textarea name="reply" rows="2" placeholder="Your reply, as you would type it in the agent's terminal" value=${text}
            onInput=${(/** @type {InputEvent} */ e) => setText(/** @type {HTMLTextAreaElement} */ (e.target).value)}></textarea>
          <button type="submit" class="send" disabled=${sending}>Send</button>
        </form>`
      : html`<p class="muted">To reply here, sign in with an admin or operator token.</p>`}
    ${problem && html`<p class="error reply-error">${problem}</p>`}
    ${error && html`<p class="error">Messages could not be loaded: ${error}</p>`}
    ${messages && messages.length > 0 && html`<ol class="messages">
      ${messages.map((m) => html`<li class="message" key=${m.id} data-message-id=${m.id} data-state=${m.state}>
        <${ClampedText} class="message-text" text=${m.text} />
        <div class="message-state muted">
          <strong title=${m.state === 'delivered' && m.takenBy ? `taken by ${m.takenBy}` : ''}>${m.state}</strong>
          ${m.state === 'delivered' && html` ${viaWords(m.via)} <${RelTime} at=${m.deliveredAt ?? m.createdAt} now=${now} />`}
          ${m.state !== 'delivered' && html` <${RelTime} at=${m.endedAt ?? m.createdAt} now=${now} />`}
          ${m.state === 'queued' && canSend && html` <button type="button" class="cancel" onClick=${() => cancel(m)}>Cancel</button>`}
        </div>
      </li>`)}
    </ol>`}
  </section>`;
}
