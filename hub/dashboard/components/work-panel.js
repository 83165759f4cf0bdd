// @ts-check
/**
 * What the agent changed, from the phone (spec section 15): "Changes (N)" with each file's counts,
 * a file's diff on a tap, the session's files, Commit (a message, "push") for the roles that may,
 * and a worktree session's branch and its removal once ended. Everything is read through the
 * session's machine runner when the page shows it, and read again when the session moves; when the
 * machine cannot be reached the panel says so, never an empty list.
 */
import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';
import { mayDecide } from '../auth.js';
import { messageOf } from '../format.js';
import { CHANGE_STATUS } from '../words.js';
import { CommitForm } from './commit-form.js';
import { DiffView } from './diff-view.js';
import { FileBrowser } from './file-browser.js';
import { WorktreeCard } from './worktree-card.js';

const REFETCH_DELAY_MS = 400;

/**
 * The changes, fetched now and again (debounced) whenever `moved` changes.
 * @param {import('../api.js').Api} api @param {string} sid @param {string} moved
 */
function useChanges(api, sid, moved) {
  const [state, setState] = useState(/** @type {{ kind: 'loading' } | { kind: 'error', text: string } | { kind: 'ok', value: import('../../../shared/protocol/work.js').ChangesResponse }} */ ({ kind: 'loading' }));
  const [asked, setAsked] = useState(0);
  useEffect(() => {
    let closed = false;
    const timer = setTimeout(
      () =>
        api.changes(sid).then(
          (value) => closed || setState({ kind: 'ok', value }),
          (err) => closed || setState({ kind: 'error', text: messageOf(err) }),
        ),
      asked === 0 ? 0 : REFETCH_DELAY_MS,
    );
    return () => {
      closed = true;
      clearTimeout(timer);
    };
  }, [api, sid, moved, asked]);
  return { state, again: () => setAsked((n) => n + 1) };
}

/** @param {{ sid: string, api: import('../api.js').Api, file: import('../../../shared/protocol/work.js').ChangedFile }} props */
function ChangedFile({ sid, api, file }) {
  const [open, setOpen] = useState(false);
  const [diff, setDiff] = useState(/** @type {{ kind: 'loading' } | { kind: 'error', text: string } | { kind: 'ok', value: import('../../../shared/protocol/work.js').DiffResponse }} */ ({ kind: 'loading' }));
  useEffect(() => {
    if (!open) return undefined;
    let closed = false;
    api.diff(sid, file.path).then(
      (value) => closed || setDiff({ kind: 'ok', value }),
      (err) => closed || setDiff({ kind: 'error', text: messageOf(err) }),
    );
    return () => {
      closed = true;
    };
  }, [api, sid, file.path, open]);
  return html`<li class="change" data-path=${file.path} data-status=${file.status}>
    <button type="button" class="change-file" aria-expanded=${open} onClick=${() => setOpen(!open)}>
      <span class="change-path">${file.oldPath ? `${file.oldPath} → ` : ''}${file.path}</span>
      <span class="change-meta"><span class=${`change-status status-${file.status}`}>${CHANGE_STATUS[file.status] ?? file.status}</span>
        ${file.binary ? html`<span class="muted">binary</span>` : html`<span class="adds">+${file.additions}</span> <span class="dels">−${file.deletions}</span>`}</span>
    </button>
    ${open && (diff.kind === 'loading' ? html`<p class="muted">Reading the diff…</p>` : diff.kind === 'error' ? html`<p class="error" role="alert">${diff.text}</p>` : html`<${DiffView} diff=${diff.value.diff} truncated=${diff.value.truncated} />`)}
  </li>`;
}

/** @param {import('../../../shared/protocol/work.js').RepoState} repo */
function branchLine(repo) {
  const where = repo.branch ?? `detached at ${repo.head?.slice(0, 7) ?? '?'}`;
  const track = repo.upstream ? ` · ${repo.upstream}${repo.ahead ? ` ↑${repo.ahead}` : ''}${repo.behind ? ` ↓${repo.behind}` : ''}` : ' · no upstream';
  return `${where}${track}`;
}

/**
 * @param {{ session: import('../sessions.js').SessionSnapshot, role: string | null, api: import('../api.js').Api }} props
 */
export function WorkPanel({ session: s, role, api }) {
  const path = typeof s.metadata.value.path === 'string' ? s.metadata.value.path : null;
  const moved = `${s.metadata.version}:${s.activity}:${s.currentTurn?.turnId ?? ''}`;
  const { state, again } = useChanges(api, s.sid, moved);
  if (path === null) return null;
  const files = state.kind === 'ok' ? state.value.files : [];
  const title = state.kind === 'ok' && state.value.repo ? `Changes (${files.length}${state.value.truncated ? '+' : ''})` : 'Changes';
  return html`<section class="work-panel" id="session-work">
    <h3 id="changes-title">${title}</h3>
    ${state.kind === 'loading' && html`<p class="muted">Asking the machine…</p>`}
    ${state.kind === 'error' && html`<p class="muted" id="changes-unknown">Cannot see the changes now: ${state.text}</p>`}
    ${state.kind === 'ok' && state.value.repo === null && html`<p class="muted">${path} is not in a git repository: no changes to show.</p>`}
    ${state.kind === 'ok' && state.value.repo && html`<p class="branch-line" id="branch-line">${branchLine(state.value.repo)}</p>
      ${files.length === 0 ? html`<p class="muted" id="no-changes">Nothing changed since the last commit.</p>` : html`<ul class="changes" id="changes">${files.map((file) => html`<${ChangedFile} key=${file.path} sid=${s.sid} api=${api} file=${file} />`)}</ul>`}
      ${mayDecide(role) && files.length > 0 && html`<${CommitForm} session=${s} api=${api} files=${files} repo=${state.value.repo} onDone=${again} />`}`}
    <${WorktreeCard} session=${s} role=${role} api=${api} />
    <${FileBrowser} sid=${s.sid} api=${api} />
  </section>`;
}
