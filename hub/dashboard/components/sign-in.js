// @ts-check
/**
 * The sign-in card: a dashboard, operator or admin token (README), kept for this tab unless
 * "remember me". The token is checked with the hub before it is kept: a wrong one is said here, in
 * the form, which stays for the next try.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../html.js';

/** @param {{ error: string, checking: boolean, onSignIn: (token: string, remember: boolean) => void }} props */
export function SignIn({ error, checking, onSignIn }) {
  const [message, setMessage] = useState(error);
  const input = useRef(/** @type {HTMLInputElement | null} */ (null));
  const remember = useRef(/** @type {HTMLInputElement | null} */ (null));
  useEffect(() => input.current?.focus(), []);

  /** @param {Event} event */
  function submit(event) {
    event.preventDefault();
    const token = input.current?.value.trim() ?? '';
    if (!token) return setMessage('Enter a token.');
    onSignIn(token, remember.current?.checked ?? false);
  }

  return html`<section id="signin" class="panel">
    <h2>Sign in</h2>
    <form id="signin-form" method="post" action="#" onSubmit=${submit}>
      <label for="token-input">Dashboard, operator or admin token</label>
      <input id="token-input" ref=${input} type="password" autocomplete="current-password" spellcheck="false"
        aria-invalid=${message ? 'true' : 'false'} aria-describedby="signin-error" />
      <button type="submit" disabled=${checking}>${checking ? 'Checking…' : 'Sign in'}</button>
      <label class="check" for="remember"><input id="remember" ref=${remember} type="checkbox" /> Remember me on this device</label>
    </form>
    <p id="signin-error" class="error" role="alert">${message}</p>
    <p class="muted">
      A dashboard token shows the sessions of its namespace, read-only. An operator token also lets
      you allow or deny tool calls, answer the agent's questions and reply to it; an admin token lets
      you do all that and resume, archive and repair sessions. Without "remember me" the token is
      forgotten when this tab closes. The hub also prints a sign-in link when it starts: it works
      once, within 10 minutes.
    </p>
  </section>`;
}
