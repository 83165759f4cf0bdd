// @ts-check
/**
 * A worktree session's branch and directory (spec section 15), and, once it ended, its removal for
 * the roles that may: refused with uncommitted changes unless the person confirms losing them. The
 * branch is kept; the card says so.
 */
import { useState } from 'preact/hooks';
import { html } from '../html.js';
import { mayDecide } from '../auth.js';
import { messageOf } from '../format.js';

/** @param {{ session: import('../sessions.js').SessionSnapshot, role: string | null, api: import('../api.js').Api }} props */
export function WorktreeCard({ session: s, role, api }) {
  const [outcome, setOutcome] = useState(/** @type {{ ok: boolean, text: string, dirty?: boolean } | null} */ (null));
  const worktree = /** @type {{ path?: string, branch?: string } | undefined} */ (s.metadata.value.worktree);
  if (!worktree || typeof worktree.branch !== 'string') return null;
  const removed = s.metadata.value.worktreeRemoved !== undefined;
  const ended = s.activity === 'ended';
  /** @param {boolean} force */
  const remove = async (force) => {
    try {
      await api.removeWorktree(s.sid, force);
      setOutcome({ ok: true, text: `Removed; the branch ${worktree.branch} is kept.` });
    } catch (err) {
      const dirty = /** @type {any} */ (err).code === 'worktree_dirty';
      setOutcome({ ok: false, text: messageOf(err), dirty });
    }
  };
  return html`<div class="worktree-card" id="worktree-card">
    <p>Worktree on branch <code>${worktree.branch}</code>${removed ? ' (removed; the branch is kept)' : html` at <code>${worktree.path}</code>`}</p>
    ${!removed && mayDecide(role) && (ended
      ? html`<button type="button" id="worktree-remove" onClick=${() => remove(false)}>Remove the worktree</button>`
      : html`<p class="muted">It can be removed once the session has ended.</p>`)}
    ${outcome && html`<p class=${outcome.ok ? 'ok' : 'error'} role=${outcome.ok ? 'status' : 'alert'}>${outcome.text}</p>`}
    ${outcome?.dirty && html`<button type="button" class="danger" id="worktree-remove-force" onClick=${() => remove(true)}>Remove anyway (its uncommitted changes are lost)</button>`}
  </div>`;
}
