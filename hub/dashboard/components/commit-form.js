// @ts-check
/**
 * Commit from the phone (spec section 15): a message, "push", the listed files; refused by the hub
 * while a turn is open (the agent may be writing), said before the click here. The outcome reads
 * what happened: the commit and where it went, or the hub's words (a refused push keeps the commit).
 */
import { useState } from 'preact/hooks';
import { html } from '../html.js';
import { messageOf } from '../format.js';

/**
 * @param {{ session: import('../sessions.js').SessionSnapshot, api: import('../api.js').Api,
 *   files: import('../../../shared/protocol/work.js').ChangedFile[], repo: import('../../../shared/protocol/work.js').RepoState, onDone: () => void }} props
 */
export function CommitForm({ session: s, api, files, repo, onDone }) {
  const [message, setMessage] = useState('');
  const [push, setPush] = useState(false);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState(/** @type {{ ok: boolean, text: string } | null} */ (null));
  const turnOpen = s.currentTurn !== null && s.currentTurn !== undefined;
  const target = repo.upstream ?? (repo.branch ? `origin/${repo.branch}` : null);
  /** @param {Event} event */
  const submit = async (event) => {
    event.preventDefault();
    setBusy(true);
    setOutcome(null);
    try {
      const done = await api.commit(s.sid, { message, push });
      const short = done.commit.slice(0, 7);
      setOutcome({ ok: true, text: `Committed ${short} on ${done.branch ?? 'a detached HEAD'} (${done.files.length} files)${done.pushed ? `, pushed to ${done.remote}` : ''}.` });
      setMessage('');
      onDone();
    } catch (err) {
      setOutcome({ ok: false, text: messageOf(err) });
      onDone();
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="commit-form" id="commit-form" onSubmit=${submit}>
    <label for="commit-message">Commit message</label>
    <textarea id="commit-message" rows="2" required placeholder="What these changes do" value=${message} onInput=${(/** @type {any} */ e) => setMessage(e.currentTarget.value)}></textarea>
    <label class="check"><input type="checkbox" id="commit-push" checked=${push} disabled=${target === null} onChange=${(/** @type {any} */ e) => setPush(e.currentTarget.checked)} /> Push${target ? ` to ${target}` : ' (no branch to push)'}</label>
    ${turnOpen && html`<p class="muted" id="commit-wait">A turn is open: the agent may still be writing. Commit once it has finished (or interrupt it).</p>`}
    <button type="submit" id="commit-button" disabled=${busy || turnOpen || message.trim() === ''}>${busy ? 'Committing…' : `Commit ${files.length} ${files.length === 1 ? 'file' : 'files'}`}</button>
    ${outcome && html`<p class=${outcome.ok ? 'ok' : 'error'} id="commit-outcome" role=${outcome.ok ? 'status' : 'alert'}>${outcome.text}</p>`}
  </form>`;
}
