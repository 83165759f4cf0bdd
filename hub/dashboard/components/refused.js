// @ts-check
/** Shown when the hub refuses the token. */
import { html } from '../html.js';

/** @param {string} code */
export function explain(code) {
  if (code === 'unauthorized') return 'The hub refused this token (unauthorized): it is unknown, expired or was revoked.';
  if (code === 'forbidden') return 'This token may not open the dashboard (forbidden): use a dashboard, operator or admin token.';
  return `The hub refused the connection: ${code}`;
}

/** @param {{ code: string, onSignOut: () => void }} props */
export function Refused({ code, onSignOut }) {
  return html`<section id="refused" class="panel" role="alert">
    <h2>Token refused</h2>
    <p id="refused-message">${explain(code)}</p>
    <button id="refused-signout" type="button" onClick=${onSignOut}>Sign out and use another token</button>
  </section>`;
}
