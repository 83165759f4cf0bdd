// @ts-check
/**
 * Resume, archive and repair, each explained where it sits. A click first asks for confirmation,
 * naming what will change; only then is the hub called. Resume and archive need a runner or admin
 * token, repair an admin token (spec section 11).
 */
import { useState } from 'preact/hooks';
import { html } from '../html.js';
import { flavorName, messageOf } from '../format.js';
import { sayResume } from '../words.js';
import { Word } from './word.js';

/**
 * @typedef {import('../sessions.js').SessionSnapshot} SessionSnapshot
 * @typedef {'resume-safe' | 'resume-force' | 'archive' | 'repair'} ActionName
 * @typedef {{ kind: 'ok' | 'error' | 'working', content: any }} Outcome
 */

/**
 * What each action will change, in a sentence naming this session.
 * @param {ActionName} action
 * @param {SessionSnapshot} s
 * @param {string} reason
 */
function consequence(action, s, reason) {
  // in a person's words, the agent named from the registry; the metadata key itself is for tooltips
  const key = resumeIdOf(s);
  const runLive = s.lifecycle.lastRun?.status === 'running';
  switch (action) {
    case 'resume-safe':
      return `Resume “${s.title}”: the hub hands out ${key} so ${flavorName(s.flavor)} can continue it. Nothing in the session changes.`;
    case 'resume-force':
      return `Resume “${s.title}” even though: ${sayResume(s.resume).text.replace(/^Can't resume safely: /, '')}. The hub hands out ${key}; nothing in the session changes, but an agent still running it, or an unfinished turn, may clash with the resumed one.`;
    case 'archive':
      return `Archive “${s.title}” with the reason “${reason}”: its state becomes Archived${runLive ? ', its running agent’s run ends as cancelled' : ''} and a safe resume is no longer offered. The metadata is kept.`;
    case 'repair':
      return `Repair “${s.title}”: if ${key} was lost, it is brought back from the session's earlier versions as a new version (v${s.metadata.version + 1}). Nothing else changes.`;
  }
}

/** "the id Claude Code needs to resume it": what the resume key is, said without its key name. @param {SessionSnapshot} s */
function resumeIdOf(s) {
  return `the id ${flavorName(s.flavor)} needs to resume it`;
}

/**
 * `continueOffered`: a machine can continue the session (machine-actions.js): Continue is then its
 * one way on, and Resume, Resume anyway and Repair wait under "Advanced" (folded; issue 46).
 * @param {{ session: SessionSnapshot, role: string | null, api: import('../api.js').Api,
 *   onArchived: (snapshot: SessionSnapshot) => void, continueOffered?: boolean }} props
 */
export function AdminActions({ session: s, role, api, onArchived, continueOffered = false }) {
  const [pending, setPending] = useState(/** @type {ActionName | null} */ (null));
  const [reason, setReason] = useState('');
  const [outcome, setOutcome] = useState(/** @type {Outcome | null} */ (null));

  if (role !== 'admin' && role !== 'runner') {
    // an operator has Continue on the page (MachineActions): no empty box for what it cannot do here
    if (role !== 'dashboard') return null;
    return html`<section class="actions">
      <p class="muted">Read-only token: resume, archive and repair need an admin token.</p>
    </section>`;
  }

  /** @param {ActionName} action */
  function ask(action) {
    if (action === 'archive' && !reason.trim()) {
      setOutcome({ kind: 'error', content: 'Give a reason to archive.' });
      return;
    }
    setOutcome(null);
    setPending(action);
  }

  async function confirm() {
    const action = pending;
    if (!action) return;
    setPending(null);
    setOutcome({ kind: 'working', content: 'Working…' });
    try {
      setOutcome({ kind: 'ok', content: await run(action) });
    } catch (err) {
      setOutcome({ kind: 'error', content: messageOf(err) });
    }
  }

  /** @param {ActionName} action */
  async function run(action) {
    if (action === 'resume-safe' || action === 'resume-force') {
      const r = await api.resume(s.sid, action === 'resume-force' ? 'force' : 'safe');
      const token = typeof r.token === 'string' ? r.token : JSON.stringify(r.token);
      return html`Resume ${flavorName(r.flavor)} with <code>${r.tokenKey}=${token}</code>${r.path ? html` in <code>${r.path}</code>` : ''}.`;
    }
    if (action === 'archive') {
      const text = reason.trim();
      const snapshot = await api.archive(s.sid, text);
      if (snapshot?.sid) onArchived(snapshot);
      setReason('');
      return `Archived: ${text}`;
    }
    const r = await api.repair(s.sid);
    const keys = Object.entries(r.restored ?? {});
    if (!keys.length) return `Nothing to restore (metadata stays at v${r.version}).`;
    return html`Restored as v${r.version}: ${keys.map(([k, v]) => html`<code class="chip">${k}=${JSON.stringify(v)}</code> `)}`;
  }

  const resumeSaid = sayResume(s.resume);
  return html`<section class="actions">
    <h3>Actions</h3>
    <div class="action-grid">
      <details class="action advanced" id="advanced" open=${!continueOffered}>
        <summary>Advanced: resume by hand, repair</summary>
      <div class="action">
        <div class="action-buttons">
          <button type="button" id="action-resume" onClick=${() => ask('resume-safe')}>Resume</button>
          <button type="button" id="action-resume-force" class="secondary" onClick=${() => ask('resume-force')} disabled=${!s.resume.available}>Resume anyway</button>
        </div>
        <p class="action-help">
          Resume gives you what ${flavorName(s.flavor)} needs to continue this session, if its last run ended
          normally. “Resume anyway” does it even after a run was cut off or while one is running.
          Now: <${Word} said=${resumeSaid} />.
        </p>
      </div>
      ${role === 'admin' &&
      html`<div class="action">
        <div class="action-buttons"><button type="button" id="action-repair" onClick=${() => ask('repair')}>Repair</button></div>
        <p class="action-help">Repair brings back <span title=${s.resume.tokenKey ? `metadata key ${s.resume.tokenKey}` : ''}>${resumeIdOf(s)}</span> from the session's earlier versions when a later write lost it.</p>
      </div>`}
      </details>
      <div class="action">
        <div class="action-buttons">
          <input id="archive-reason" type="text" placeholder="reason" aria-label="Archive reason" maxlength="1024"
            value=${reason} onInput=${(/** @type {Event} */ e) => setReason(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
          <button type="button" id="action-archive" onClick=${() => ask('archive')}>Archive</button>
        </div>
        <p class="action-help">Archive puts the session away with your reason; a running agent's run is ended. Its metadata and resume key are kept.</p>
      </div>
    </div>
    ${pending &&
    html`<div class="confirm" role="alertdialog" aria-labelledby="confirm-text">
      <p id="confirm-text">${consequence(pending, s, reason.trim())}</p>
      <button type="button" id="confirm-yes" onClick=${confirm}>Confirm</button>
      <button type="button" id="confirm-no" class="secondary" onClick=${() => setPending(null)}>Cancel</button>
    </div>`}
    ${outcome && html`<p class=${`action-result ${outcome.kind === 'working' ? '' : outcome.kind}`} role="status" aria-live="polite">${outcome.content}</p>`}
  </section>`;
}

