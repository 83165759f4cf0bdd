// @ts-check
/**
 * Machines (docs/machines.md): each computer with a machine runner, online or not, its roots, the
 * agents it has and its sessions; and New session — the machine, a directory under its roots
 * (picked through the runner, with the directories its sessions used recently), the agent, the
 * permission mode (bypass only where the machine allows it), the first prompt.
 */
import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';
import { mayDecide } from '../auth.js';
import { versionNumber } from '../agent-version.js';
import { flavorName, messageOf } from '../format.js';
import { lastActivityOf } from '../sessions.js';
import { ActivityBadge } from './activity-badge.js';
import { FoundSessions } from './found-sessions.js';

/** Typing pauses this long before the directory is checked on the machine. */
const PATH_CHECK_DELAY_MS = 300;

/** @param {string} path */
const lastPart = (path) => path.replace(/[\\/]+$/, '').split(/[\\/]/).at(-1) ?? path;

/** A machine's card lists this many of its sessions, the most recently active first. */
const SESSIONS_SHOWN = 5;

/** @typedef {import('../../shared/protocol/machines.js').ListedMachine} Machine */

const MODES = [
  ['default', 'Ask before edits and commands'],
  ['acceptEdits', 'Accept edits, ask before commands'],
  ['plan', 'Plan only: no changes'],
  ['bypassPermissions', 'Bypass: run everything without asking'],
];

/** How often the Machines view reads the list again (online, offline, new machines). */
const MACHINES_REFRESH_MS = 5000;

/** @param {string} path */
const parentOf = (path) => path.replace(/[\\/][^\\/]+[\\/]?$/, '') || '/';
/** @param {string} path @param {string} name */
const childOf = (path, name) => `${path.replace(/[\\/]+$/, '')}/${name}`;

/**
 * @param {{ api: import('../api.js').Api, store: import('../sessions.js').SessionView, role: string | null }} props
 */
export function MachinesView({ api, store, role }) {
  const [machines, setMachines] = useState(/** @type {Machine[] | null} */ (null));
  const [error, setError] = useState('');
  // read again while the view is open: a runner started now shows up without a reload
  const read = () => api.machines().then((answer) => (setMachines(answer.machines), setError('')), (err) => setError(messageOf(err)));
  useEffect(() => {
    read();
    const timer = setInterval(read, MACHINES_REFRESH_MS);
    return () => clearInterval(timer);
  }, [api]);
  /** @param {Machine} machine */
  async function forget(machine) {
    if (!window.confirm(`Forget "${machine.name}"? It leaves this list; its runner can register it again.`)) return;
    try {
      await api.forgetMachine(machine.machineId);
    } catch (err) {
      setError(messageOf(err));
      return;
    }
    read();
  }
  if (error) return html`<section class="machines"><p class="error" role="alert">${error}</p></section>`;
  if (!machines) return html`<section class="machines"><p class="muted">Loading machines…</p></section>`;
  const sessions = store.list();
  return html`<section class="machines">
    <h2>Machines</h2>
    ${machines.length === 0 &&
    html`<p class="muted" id="no-machines">No machine yet. On a computer of yours, run <code>session-hub runner --root ~/code</code> with a machine token (<code>session-hub token create --role machine --label "my laptop"</code>; from the repository, <code>npm run hub -- …</code>). It shows here within seconds.</p>`}
    <ul class="machine-list">
      ${machines.map((machine) => {
        const its = sessions.filter((s) => s.metadata.value.machineId === machine.machineId);
        return html`<li class="machine" data-machine=${machine.machineId} data-online=${String(machine.online)}>
          <strong>${machine.name}</strong> <span class=${machine.online ? 'ok' : 'muted'}>${machine.online ? 'online' : `offline since ${new Date(machine.lastSeenAt).toLocaleString()}`}</span>
          <div class="muted">${machine.host} · ${machine.platform}</div>
          <div>Roots: ${machine.roots.join(', ')}</div>
          <div title=${machine.agents.map((agent) => `${agent.path}: ${agent.version ?? 'no version'}`).join('\n')}>Agents: ${machine.agents.map((agent) => `${flavorName(agent.flavor)}${agent.version ? ` ${versionNumber(agent.version)}` : ''}`).join(', ') || 'none found'}</div>
          ${its.length === 0
            ? html`<div class="machine-sessions">Sessions: none</div>`
            : html`<div class="machine-sessions">Sessions${its.length > SESSIONS_SHOWN ? ` (the latest ${SESSIONS_SHOWN} of ${its.length})` : ''}:
                <ul>${its.sort((a, b) => lastActivityOf(b) - lastActivityOf(a)).slice(0, SESSIONS_SHOWN).map((s) => html`<li data-sid=${s.sid}>
                  <a href=${`#/s/${encodeURIComponent(s.sid)}`}>${s.title ?? s.sid}</a> <${ActivityBadge} activity=${s.activity} />
                </li>`)}</ul>
              </div>`}
          ${machine.online && mayDecide(role) && html`<${FoundSessions} api=${api} machineId=${machine.machineId} now=${Date.now()} />`}
          ${!machine.online && mayDecide(role) && html`<button type="button" class="forget-machine" onClick=${() => forget(machine)}>Forget this machine</button>`}
        </li>`;
      })}
    </ul>
    ${machines.length > 0 && html`<${NewSession} api=${api} machines=${machines} role=${role} />`}
  </section>`;
}

/**
 * @param {{ api: import('../api.js').Api, machines: Machine[], role: string | null }} props
 */
function NewSession({ api, machines, role }) {
  const online = machines.filter((machine) => machine.online);
  const [machineId, setMachineId] = useState(online[0]?.machineId ?? '');
  const machine = machines.find((candidate) => candidate.machineId === machineId);
  const [path, setPath] = useState(machine?.roots[0] ?? '');
  const [dirs, setDirs] = useState(/** @type {string[]} */ ([]));
  const [flavor, setFlavor] = useState(machine?.agents[0]?.flavor ?? '');
  const [mode, setMode] = useState('default');
  const [prompt, setPrompt] = useState('');
  const [inWorktree, setInWorktree] = useState(false);
  const [branch, setBranch] = useState('');
  const [outcome, setOutcome] = useState(/** @type {{ kind: string, text: string } | null} */ (null));

  // the first machine to come online is picked when none was
  const onlineIds = online.map((m) => m.machineId).join(' ');
  useEffect(() => {
    if (online[0] && !online.some((m) => m.machineId === machineId)) setMachineId(online[0].machineId);
  }, [onlineIds]);
  useEffect(() => {
    if (!machine) return;
    setPath(machine.recentPaths[0] ?? machine.roots[0] ?? '');
    setFlavor(machine.agents[0]?.flavor ?? '');
    if (!machine.allowBypass && mode === 'bypassPermissions') setMode('default');
  }, [machineId]);
  // the directory is checked while it is typed (outside the roots, missing), not at Start
  const [pathProblem, setPathProblem] = useState(/** @type {{ text: string, missing: boolean } | null} */ (null));
  const [made, setMade] = useState(0);
  useEffect(() => {
    if (!machine?.online || !path) return setDirs([]);
    let closed = false;
    const timer = setTimeout(() => {
      api.machineDirs(machine.machineId, path).then(
        (answer) => closed || (setDirs(answer.dirs), setPathProblem(null)),
        (err) => closed || (setDirs([]), setPathProblem({ text: messageOf(err), missing: /** @type {any} */ (err).code === 'not_found' })),
      );
    }, PATH_CHECK_DELAY_MS);
    return () => {
      closed = true;
      clearTimeout(timer);
    };
  }, [machineId, path, made]);

  async function makeFolder() {
    if (!machine) return;
    try {
      await api.makeDir(machine.machineId, path);
      setMade((n) => n + 1);
    } catch (err) {
      setPathProblem({ text: messageOf(err), missing: false });
    }
  }

  if (!mayDecide(role)) {
    return html`<section class="new-session"><h3>New session</h3><p class="muted">Starting agents needs an operator or admin token; yours is ${role ?? 'unknown'}.</p></section>`;
  }
  if (online.length === 0) return html`<section class="new-session"><h3>New session</h3><p class="muted">No machine is online: start its runner; it shows here within seconds.</p></section>`;
  const noAgent = machine !== undefined && machine.agents.length === 0;

  async function start() {
    if (!machine) return;
    setOutcome({ kind: 'working', text: 'Starting the agent… (up to 30 s)' });
    try {
      const worktree = inWorktree ? { worktree: branch.trim() ? { branch: branch.trim() } : {} } : {};
      const started = await api.startOnMachine(machine.machineId, { flavor, path, ...(prompt.trim() ? { prompt } : {}), permissionMode: mode, ...worktree });
      location.hash = `#/s/${encodeURIComponent(started.sid)}`;
    } catch (err) {
      setOutcome({ kind: 'error', text: messageOf(err) });
    }
  }

  const underRoot = machine?.roots.some((root) => path !== root && path.startsWith(root));
  return html`<section class="new-session">
    <h3>New session</h3>
    <label>Machine <select id="new-machine" value=${machineId} onChange=${(/** @type {any} */ e) => setMachineId(e.currentTarget.value)}>
      ${online.map((m) => html`<option value=${m.machineId}>${m.name}</option>`)}
    </select></label>
    <div class="dir-picker">
      <label>Directory <input id="new-path" value=${path} onInput=${(/** @type {any} */ e) => setPath(e.currentTarget.value)} /></label>
      ${pathProblem && html`<p class="error" id="new-path-problem" role="status">${pathProblem.text}</p>`}
      ${pathProblem?.missing && html`<button type="button" id="new-mkdir" onClick=${makeFolder}>Make folder ${lastPart(path)}</button>`}
      <div class="dirs">
        ${underRoot && html`<button type="button" class="dir-up" onClick=${() => setPath(parentOf(path))}>↑ up</button>`}
        ${dirs.map((name) => html`<button type="button" class="dir" data-dir=${name} onClick=${() => setPath(childOf(path, name))}>${name}/</button>`)}
      </div>
      ${machine && machine.recentPaths.length > 0 &&
      html`<div class="recent">Recent: ${machine.recentPaths.map((recent) => html`<button type="button" class="recent-dir" onClick=${() => setPath(recent)}>${recent}</button>`)}</div>`}
    </div>
    <label>Agent <select id="new-agent" value=${flavor} onChange=${(/** @type {any} */ e) => setFlavor(e.currentTarget.value)}>
      ${(machine?.agents ?? []).map((agent) => html`<option value=${agent.flavor}>${flavorName(agent.flavor)}</option>`)}
    </select></label>
    <label>Permissions <select id="new-mode" value=${mode} onChange=${(/** @type {any} */ e) => setMode(e.currentTarget.value)}>
      ${MODES.filter(([value]) => value !== 'bypassPermissions' || machine?.allowBypass).map(([value, text]) => html`<option value=${value}>${text}</option>`)}
    </select></label>
    <p class="muted">${machine?.allowBypass ? 'This machine allows bypass mode: the agent then runs every tool without asking.' : 'Bypass mode is off on this machine (its runner was not started with --allow-bypass).'}</p>
    <label class="check"><input type="checkbox" id="new-worktree" checked=${inWorktree} onChange=${(/** @type {any} */ e) => setInWorktree(e.currentTarget.checked)} /> In a new worktree: a branch and directory of its own beside the repository, so agents on one repository never touch each other's files</label>
    ${inWorktree && html`<label>Branch <input id="new-branch" placeholder="session-hub/… (made for it)" value=${branch} onInput=${(/** @type {any} */ e) => setBranch(e.currentTarget.value)} /></label>`}
    <label>First prompt <textarea id="new-prompt" rows="3" value=${prompt} onInput=${(/** @type {any} */ e) => setPrompt(e.currentTarget.value)}></textarea></label>
    <p class="muted">Starts ${flavorName(flavor)} in ${path} on ${machine?.name}; its approvals and questions come here.</p>
    ${noAgent && html`<p class="error" id="new-no-agent">${machine.name} found no agent to start: install Claude Code or Codex where its runner's PATH finds them, then restart the runner.</p>`}
    <button type="button" id="new-start" onClick=${start} disabled=${outcome?.kind === 'working' || noAgent}>Start</button>
    ${outcome && html`<p id="new-outcome" class=${outcome.kind === 'error' ? 'error' : 'muted'} role="status">${outcome.text}</p>`}
  </section>`;
}
