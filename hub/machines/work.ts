/**
 * The work, from the phone (spec section 15, docs/work.md): a session's changes, diff and files,
 * a commit (and push) and its worktree's removal, each asked of the runner of the session's
 * machine; the hub stores nothing of the tree. Writes are refused while a turn is open, recorded
 * with who asked (machine_actions) and on the session's metadata (broadcast), reads are not recorded.
 */
import type { JsonObject } from '../../shared/protocol/json.js';
import {
  SessionWorktreeSchema,
  WORK_COMMIT_TIMEOUT_MS,
  WORK_METADATA_KEYS,
  WORK_READ_TIMEOUT_MS,
  type ChangesResponse,
  type CommitRequest,
  type CommitResponse,
  type DiffResponse,
  type FilesResponse,
} from '../../shared/protocol/work.js';
import type { HubDeps } from '../services/deps.js';
import { runWrite } from '../services/changes.js';
import { applyMetadataPatch } from '../services/metadata-merge.js';
import { commitMetadataVersion } from '../services/metadata-writes.js';
import { requireSession } from '../services/require-session.js';
import { getSessionOrigin } from '../store/machine-session-runs.js';
import { getMachine, listMachinesOnHost, type StoredMachine } from '../store/machines.js';
import { getSession, type StoredSession } from '../store/sessions.js';
import { askMachine, recorded } from './ask.js';
import { placeOf } from './choose.js';
import { MachineRefused } from './refused.js';
import type { Requester } from './requester.js';
import { isUnderRoots } from './roots.js';

interface WorkPlace {
  session: StoredSession;
  machine: StoredMachine;
  /** Where the agent works (metadata.path: a worktree's directory for a worktree session). */
  path: string;
}

/**
 * The machine whose runner serves the session's work: the one a person ran it on (recorded by the
 * hub), else the one its metadata names, else the one online machine of its host whose roots hold
 * its path. The runner checks the path against its own roots again, links followed.
 */
async function workPlace(deps: HubDeps, who: Requester, sid: string): Promise<WorkPlace> {
  const session = await requireSession(deps.store, who, sid);
  const origin = await getSessionOrigin(deps.store, { namespace: who.namespace, sid });
  const place = placeOf(session);
  const path = place.path ?? origin?.path;
  if (path === undefined) throw new MachineRefused('no_machine', `session ${sid} has no directory (metadata.path): there is no working tree to show`);
  const online = (await deps.machines?.onlineIds(who.namespace)) ?? new Set<string>();
  const named = origin?.machineId ?? place.machineId;
  if (named !== undefined) {
    const machine = await getMachine(deps.store, { namespace: who.namespace, machineId: named });
    if (machine) {
      if (!online.has(machine.machineId)) throw new MachineRefused('machine_offline', `machine "${machine.name}" that runs this session is not connected: start its runner on ${machine.host} (session-hub runner) and retry`);
      if (!isUnderRoots(path, machine.roots)) throw new MachineRefused('path_outside_roots', `${path} is not under a root of machine "${machine.name}" (${machine.roots.join(', ')})`);
      return { session, machine, path };
    }
  }
  const sameHost = place.host === undefined ? [] : await listMachinesOnHost(deps.store, { namespace: who.namespace, host: place.host });
  const fitting = sameHost.filter((machine) => online.has(machine.machineId) && isUnderRoots(path, machine.roots));
  if (fitting.length === 1) return { session, machine: fitting[0]!, path };
  const host = place.host === undefined ? 'its computer (its hooks reported no host)' : `host "${place.host}"`;
  if (fitting.length > 1) throw new MachineRefused('no_machine', `${fitting.length} online machines of ${host} hold ${path}: start the session from one of them to see its work`);
  throw new MachineRefused('no_machine', `no online machine serves this session's files: it needs a runner on ${host} with a root holding ${path} (session-hub runner --root <dir>)`);
}

/** Writes wait for the agent: while a turn is open it may be writing the files. */
function requireNoOpenTurn(session: StoredSession): void {
  if (session.currentTurnId !== null) {
    throw new MachineRefused('session_running', `a turn of session ${session.sid} is open: the agent may be writing these files; wait for it to finish, or interrupt it, then commit`);
  }
}

/** The hub's record on the session's metadata (a new version, broadcast to every page). */
async function recordOnSession(deps: HubDeps, who: Requester, sid: string, patch: JsonObject): Promise<void> {
  await runWrite(
    deps,
    async (tx, changes, now) => {
      const session = await getSession(tx, { namespace: who.namespace, sid });
      if (!session) return;
      const outcome = applyMetadataPatch(session.metadata, patch);
      await commitMetadataVersion(tx, changes, { session, outcome, by: 'hub', now });
    },
    { namespace: who.namespace },
  ).catch((error: unknown) => deps.log.error({ err: error, sid }, 'could not record the work on the session'));
}

const by = (who: Requester) => ({ byToken: who.tokenId, byLabel: who.label });

/** GET /api/sessions/:sid/changes */
export async function sessionChanges(deps: HubDeps, who: Requester, sid: string): Promise<ChangesResponse> {
  const { machine, path } = await workPlace(deps, who, sid);
  const answer = await askMachine(deps, machine.machineId, 'machine-changes', { sid, path, requestedBy: who.name }, WORK_READ_TIMEOUT_MS);
  return { sid, machineId: machine.machineId, path, ...answer.changes };
}

/** GET /api/sessions/:sid/changes/diff */
export async function sessionDiff(deps: HubDeps, who: Requester, sid: string, file: string | undefined): Promise<DiffResponse> {
  const { machine, path } = await workPlace(deps, who, sid);
  const answer = await askMachine(deps, machine.machineId, 'machine-diff', { sid, path, requestedBy: who.name, ...(file !== undefined ? { file } : {}) }, WORK_READ_TIMEOUT_MS);
  return answer.diff;
}

/** GET /api/sessions/:sid/files */
export async function sessionFiles(deps: HubDeps, who: Requester, sid: string, file: string | undefined): Promise<FilesResponse> {
  const { machine, path } = await workPlace(deps, who, sid);
  const answer = await askMachine(deps, machine.machineId, 'machine-files', { sid, path, requestedBy: who.name, ...(file !== undefined ? { file } : {}) }, WORK_READ_TIMEOUT_MS);
  return answer.files;
}

/** POST /api/sessions/:sid/commit: 201 with the commit; recorded (a refused push too: the commit stays). */
export async function commitSession(deps: HubDeps, who: Requester, sid: string, request: CommitRequest): Promise<CommitResponse> {
  const { session, machine, path } = await workPlace(deps, who, sid);
  return recorded(deps, who, { machineId: machine.machineId, sid, action: 'commit', path }, async () => {
    requireNoOpenTurn(session);
    try {
      const { commit } = await askMachine(deps, machine.machineId, 'machine-commit', { sid, path, requestedBy: who.name, message: request.message, files: request.files, push: request.push }, WORK_COMMIT_TIMEOUT_MS);
      await recordOnSession(deps, who, sid, { [WORK_METADATA_KEYS.lastCommit]: { ...commit, message: request.message.slice(0, 200), ...by(who), at: deps.clock.now() } });
      return commit;
    } catch (error) {
      if (error instanceof MachineRefused && error.code === 'push_rejected') {
        const hash = /committed ([0-9a-f]{7,64})/.exec(error.message)?.[1];
        if (hash) await recordOnSession(deps, who, sid, { [WORK_METADATA_KEYS.lastCommit]: { commit: hash, branch: null, files: request.files ?? [], pushed: false, pushRefused: error.message.slice(0, 500), message: request.message.slice(0, 200), ...by(who), at: deps.clock.now() } });
      }
      throw error;
    }
  });
}

/** DELETE /api/sessions/:sid/worktree: an ended session's worktree goes; its branch stays. */
export async function removeWorktreeOf(deps: HubDeps, who: Requester, sid: string, force: boolean) {
  const { session, machine } = await workPlace(deps, who, sid);
  const worktree = SessionWorktreeSchema.safeParse(session.metadata[WORK_METADATA_KEYS.worktree]);
  return recorded(deps, who, { machineId: machine.machineId, sid, action: 'worktree-remove', path: worktree.success ? worktree.data.path : null }, async () => {
    if (!worktree.success) throw new MachineRefused('not_found', `session ${sid} was not started in a worktree: there is none to remove`);
    if (session.metadata[WORK_METADATA_KEYS.worktreeRemoved] !== undefined) throw new MachineRefused('not_found', `the worktree of session ${sid} was removed already`);
    if (session.lastRun?.status === 'running') throw new MachineRefused('session_running', `session ${sid} has a live run: stop it first, then remove its worktree`);
    const { path, repoRoot, branch } = worktree.data;
    await askMachine(deps, machine.machineId, 'machine-worktree-remove', { sid, path, repoRoot, branch, force, requestedBy: who.name }, WORK_READ_TIMEOUT_MS);
    await recordOnSession(deps, who, sid, { [WORK_METADATA_KEYS.worktreeRemoved]: { path, branch, force, ...by(who), at: deps.clock.now() } });
    return { sid, path, branch, removed: true as const };
  });
}
