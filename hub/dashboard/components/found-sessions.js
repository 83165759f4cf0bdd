// @ts-check
/**
 * "Sessions on this machine" (spec section 16): the sessions the agents keep in their own stores on
 * one machine, read through its runner when opened; searched by directory and text; each either
 * already on the hub (a link), importable (Import: it becomes a hub session with its turns, then
 * opens), or not, with the runner's reason.
 */
import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';
import { flavorName, messageOf } from '../format.js';
import { RelTime } from './rel-time.js';

/** @typedef {import('../../../shared/protocol/agent-sessions.js').AgentSession} AgentSession */

/** @param {{ api: import('../api.js').Api, machineId: string, now: number }} props */
export function FoundSessions({ api, machineId, now }) {
  const [open, setOpen] = useState(false);
  const [found, setFound] = useState(/** @type {{ kind: 'loading' } | { kind: 'error', text: string } | { kind: 'ok', sessions: AgentSession[] }} */ ({ kind: 'loading' }));
  const [query, setQuery] = useState('');
  const [importing, setImporting] = useState(/** @type {Record<string, string>} */ ({}));
  useEffect(() => {
    if (!open) return undefined;
    let closed = false;
    api.agentSessions(machineId).then(
      (body) => closed || setFound({ kind: 'ok', sessions: body.sessions }),
      (err) => closed || setFound({ kind: 'error', text: messageOf(err) }),
    );
    return () => {
      closed = true;
    };
  }, [api, machineId, open]);

  /** @param {AgentSession} s */
  async function importOne(s) {
    setImporting((was) => ({ ...was, [s.agentSessionId]: 'Importing…' }));
    try {
      const made = await api.importAgentSession(machineId, { flavor: s.flavor, agentSessionId: s.agentSessionId });
      location.hash = `#/s/${encodeURIComponent(made.sid)}`;
    } catch (err) {
      setImporting((was) => ({ ...was, [s.agentSessionId]: messageOf(err) }));
    }
  }

  const words = query.trim().toLowerCase();
  const shown = found.kind === 'ok' ? found.sessions.filter((s) => words === '' || `${s.path ?? ''} ${s.title ?? ''}`.toLowerCase().includes(words)) : [];
  return html`<details class="found-sessions" onToggle=${(/** @type {Event} */ e) => setOpen(/** @type {HTMLDetailsElement} */ (e.currentTarget).open)}>
    <summary>Sessions on this machine</summary>
    ${open && html`<div class="found-body">
      <input type="search" class="found-search" placeholder="Search by directory or text" aria-label="Search sessions on this machine" value=${query} onInput=${(/** @type {any} */ e) => setQuery(e.currentTarget.value)} />
      ${found.kind === 'loading' && html`<p class="muted">Reading the agents' own sessions on the machine…</p>`}
      ${found.kind === 'error' && html`<p class="error" role="alert">${found.text}</p>`}
      ${found.kind === 'ok' && shown.length === 0 && html`<p class="muted">${found.sessions.length === 0 ? 'No Claude Code or Codex session under its roots.' : 'None matches.'}</p>`}
      <ul class="found-list">
        ${shown.map((s) => html`<li class="found" data-agent-session=${s.agentSessionId} data-flavor=${s.flavor}>
          <div class="found-title">${s.title ?? '(no prompt)'}</div>
          <div class="muted">${flavorName(s.flavor)} · ${s.turns} ${s.turns === 1 ? 'turn' : 'turns'} · <${RelTime} at=${s.updatedAt} now=${now} /></div>
          <div class="muted found-path">${s.path ?? ''}</div>
          ${s.sid
            ? html`<a class="found-open" href=${`#/s/${encodeURIComponent(s.sid)}`}>Open (on the hub)</a>`
            : s.problem
              ? html`<p class="muted found-problem">Cannot be imported: ${s.problem}</p>`
              : html`<button type="button" class="found-import" onClick=${() => importOne(s)} disabled=${importing[s.agentSessionId] === 'Importing…'}>Import</button>`}
          ${importing[s.agentSessionId] && importing[s.agentSessionId] !== 'Importing…' && html`<p class="error" role="alert">${importing[s.agentSessionId]}</p>`}
        </li>`)}
      </ul>
    </div>`}
  </details>`;
}
