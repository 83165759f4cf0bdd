// @ts-check
/** The sign-in card: a dashboard or admin token (README), kept for this tab unless "remember me". */
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../html.js';

/** @param {{ error: string, onSignIn: (token: string, remember: boolean) => void }} props */
export function SignIn({ error, onSignIn }) {
  const [message, setMessage] = useState(error);
  const input = useRef(/** @type {HTMLInputElement | null} */ (null));
  const remember = useRef(/** @type {HTMLInputElement | null} */ (null));
  useEffect(() => input.current?.focus(), []);

  /** @param {Event} event */
  function submit(event) {
    event.preventDefault();
    const token = input.current?.value.trim() ?? '';
    if (!token) return setMessage('Enter a token.');
    if (input.current) input.current.value = '';
    onSignIn(token, remember.current?.checked ?? false);
  }

  return html`<section id="signin" class="panel">
    <h2>Sign in</h2>
    <form id="signin-form" method="post" action="#" onSubmit=${submit}>
      <label for="token-input">Dashboard or admin token</label>
      <input id="token-input" ref=${input} type="password" autocomplete="current-password" spellcheck="false" />
      <label class="check"><input id="remember" ref=${remember} type="checkbox" /> Remember me on this device</label>
      <button type="submit">Sign in</button>
    </form>
    <p id="signin-error" class="error" role="alert">${message}</p>
    <p class="muted">
      A dashboard token shows the sessions of its namespace, read-only. An admin token also lets you
      resume, archive and repair them. Without "remember me" the token is forgotten when this tab closes.
      The hub also prints a sign-in link when it starts: it works once, within 10 minutes.
    </p>
  </section>`;
}
