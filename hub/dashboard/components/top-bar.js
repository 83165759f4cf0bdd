// @ts-check
/**
 * The bar on every view, one row on a phone too (issue 46): "Needs you" first (how many sessions wait
 * on a person; one opens that session, more the list, whose first box they are), the views, the
 * link's state, and a menu for who is signed in, the alert opt-ins and sign-out (inline where the
 * screen is wide, behind ☰ on a phone).
 */
import { useState } from 'preact/hooks';
import { html } from '../html.js';
import { NotifyButtons } from './notify-button.js';

const LINK_TEXT = Object.freeze({
  loading: 'loading',
  connecting: 'connecting',
  live: 'live',
  reconnecting: 'reconnecting',
  refused: 'refused',
  error: 'error',
  'signed-out': 'signed out',
});

/**
 * @param {{ link: { state: string, detail?: string }, me: { role: string, namespace: string } | null, onSignOut: (() => void) | null,
 *   token?: string, needing?: string[] }} props
 *   `needing`: the sids of the sessions that wait on a person, most urgent first
 */
export function TopBar({ link, me, onSignOut, token, needing = [] }) {
  const [menuOpen, setMenuOpen] = useState(false);
  const needsHref = needing.length === 1 ? `#/s/${encodeURIComponent(/** @type {string} */ (needing[0]))}` : '#';
  return html`<header class="bar">
    <h1><a href="#">Session Hub</a></h1>
    ${token && html`<nav class="views">
      <a href=${needsHref} id="nav-needs-you" class="needs-you-link" data-count=${needing.length}
        title=${needing.length ? `${needing.length} ${needing.length === 1 ? 'session waits' : 'sessions wait'} on you` : 'no session waits on you'}>Needs you${' '}<span class="count">${needing.length}</span></a>
      <a href="#" id="nav-sessions">Sessions</a><a href="#/usage" id="nav-usage">Usage</a><a href="#/machines" id="nav-machines">Machines</a>
    </nav>`}
    <span id="conn" class="conn" data-state=${link.state} title=${link.detail ?? ''} role="status" aria-live="polite">
      ${/** @type {Record<string, string>} */ (LINK_TEXT)[link.state] ?? link.state}
    </span>
    ${token && html`<button type="button" id="bar-menu" class="bar-menu" aria-expanded=${menuOpen} aria-controls="bar-more" aria-label="Menu: alerts, who is signed in, sign out"
      onClick=${() => setMenuOpen(!menuOpen)}>☰</button>`}
    <div id="bar-more" class=${`bar-more${menuOpen ? ' open' : ''}`}>
      <span id="who" class="who" data-role=${me?.role ?? ''}>${me ? `${me.role} · ${me.namespace}` : ''}</span>
      ${token && html`<${NotifyButtons} token=${token} />`}
      ${onSignOut && html`<button id="signout" type="button" onClick=${onSignOut}>Sign out</button>`}
    </div>
  </header>`;
}
