// @ts-check
/** The bar on every view: the link's state, who is signed in, and sign-out. */
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
 *   token?: string }} props
 */
export function TopBar({ link, me, onSignOut, token }) {
  return html`<header class="bar">
    <h1><a href="#">Session Hub</a></h1>
    <span id="conn" class="conn" data-state=${link.state} title=${link.detail ?? ''} role="status" aria-live="polite">
      ${/** @type {Record<string, string>} */ (LINK_TEXT)[link.state] ?? link.state}
    </span>
    <span id="who" class="who" data-role=${me?.role ?? ''}>${me ? `${me.role} · ${me.namespace}` : ''}</span>
    ${token && html`<nav class="views"><a href="#" id="nav-sessions">Sessions</a><a href="#/usage" id="nav-usage">Usage</a><a href="#/machines" id="nav-machines">Machines</a></nav>`}
    ${token && html`<${NotifyButtons} token=${token} />`}
    ${onSignOut && html`<button id="signout" type="button" onClick=${onSignOut}>Sign out</button>`}
  </header>`;
}
