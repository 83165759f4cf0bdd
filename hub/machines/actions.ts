/**
 * What a person asks of machines over HTTP (spec section 14): list them, list a directory, start an
 * agent, continue an ended session through the resume gate, interrupt or stop a runner-driven one.
 * Every refusal the hub can know of is answered before anything is sent to a runner; every action is
 * recorded with who asked (ask.ts).
 */
import { randomUUID } from 'node:crypto';
import {
  MACHINE_ACK_TIMEOUT_MS,
  PermissionModeSchema,
  STOP_KILL_AFTER_MS,
  type ContinuePlaceResponse,
  type ContinueSessionRequest,
  type ListedMachine,
  type MachineSpawnPayload,
  type PermissionMode,
  type StartSessionRequest,
} from '../../shared/protocol/machines.js';
import type { HubDeps } from '../services/deps.js';
import { runWrite } from '../services/changes.js';
import { requireSession } from '../services/require-session.js';
import { cancelRunnerAsks } from '../people/approvals.js';
import { handTakerToContinue } from '../people/message-takers.js';
import { resumeSession } from '../services/resume.js';
import { resumeTokenProblem } from '../../shared/flavors.js';
import { claimSessionRun, getSessionOrigin, recordSessionOrigin, releaseSessionRun, type SessionOrigin } from '../store/machine-session-runs.js';
import { forgetMachine, getMachine, listMachines, recentMachinePaths, type StoredMachine } from '../store/machines.js';
import { askMachine, recorded } from './ask.js';
import { machineFor, placeOf } from './choose.js';
import { MachineRefused } from './refused.js';
import type { Requester } from './requester.js';
import { isUnderRoots } from './roots.js';
import { machineView } from './view.js';
import { defaultWorktreeBranch } from '../../shared/protocol/work.js';

const RECENT_PATHS = 8;

export async function listMachinesFor(deps: HubDeps, namespace: string): Promise<ListedMachine[]> {
  const [stored, online, recent] = await Promise.all([
    listMachines(deps.store, namespace),
    deps.machines?.onlineIds(namespace) ?? new Set<string>(),
    recentMachinePaths(deps.store, { namespace, limit: RECENT_PATHS }),
  ]);
  return stored.map((machine) => ({ ...machineView(machine, online.has(machine.machineId)), recentPaths: recent.get(machine.machineId) ?? [] }));
}

/**
 * DELETE /api/machines/:machineId: a person forgets a machine (a laptop gone, a registration made by
 * mistake). Not while its runner is connected: it would register again at once; stop it first.
 */
export async function forgetMachineFor(deps: HubDeps, who: Requester, machineId: string): Promise<{ machineId: string; forgotten: true }> {
  const machine = await requireMachine(deps, who, machineId);
  return recorded(deps, who, { machineId, sid: null, action: 'forget', path: null }, async () => {
    const online = await deps.machines?.onlineIds(who.namespace);
    if (online?.has(machineId)) {
      throw new MachineRefused('machine_online', `machine "${machine.name}" is connected: stop its runner on ${machine.host} first, then forget it`);
    }
    await forgetMachine(deps.store, { namespace: who.namespace, machineId });
    return { machineId, forgotten: true as const };
  });
}

async function requireMachine(deps: HubDeps, who: Requester, machineId: string): Promise<StoredMachine> {
  const machine = await getMachine(deps.store, { namespace: who.namespace, machineId });
  if (!machine) throw new MachineRefused('machine_not_found', `no machine ${machineId} in this namespace: see GET /api/machines`);
  return machine;
}

async function requireOnline(deps: HubDeps, machine: StoredMachine): Promise<void> {
  const online = await deps.machines?.onlineIds(machine.namespace);
  if (!online?.has(machine.machineId)) {
    throw new MachineRefused('machine_offline', `machine "${machine.name}" is not connected: start its runner on ${machine.host} (session-hub runner) and retry`);
  }
}

function requireUnderRoots(machine: StoredMachine, path: string): void {
  if (!isUnderRoots(path, machine.roots)) {
    throw new MachineRefused('path_outside_roots', `${path} is not under a root of machine "${machine.name}" (${machine.roots.join(', ')}): pick a directory under one, or restart its runner with --root`);
  }
}

function requireAgent(machine: StoredMachine, flavor: string): void {
  if (machine.agents.some((agent) => agent.flavor === flavor)) return;
  const has = machine.agents.map((agent) => agent.flavor).join(', ') || 'none';
  throw new MachineRefused('agent_unavailable', `machine "${machine.name}" has no ${flavor} CLI on its PATH (it has: ${has}): install it there and restart the runner`);
}

function requireMode(machine: StoredMachine, mode: PermissionMode | undefined): void {
  if (mode === 'bypassPermissions' && !machine.allowBypass) {
    throw new MachineRefused('forbidden', `machine "${machine.name}" does not allow bypassPermissions: pick another mode, or restart its runner with --allow-bypass`);
  }
}

/** GET /api/machines/:machineId/dirs: the subdirectories of `path` (default its first root). */
export async function machineDirs(deps: HubDeps, who: Requester, machineId: string, path: string | undefined) {
  const machine = await requireMachine(deps, who, machineId);
  const where = path ?? machine.roots[0] ?? '/';
  return recorded(deps, who, { machineId, sid: null, action: 'dirs', path: where }, async () => {
    requireUnderRoots(machine, where);
    await requireOnline(deps, machine);
    const answer = await askMachine(deps, machineId, 'machine-dirs', { path: where, requestedBy: who.name }, MACHINE_ACK_TIMEOUT_MS);
    return { path: answer.path, dirs: answer.dirs };
  });
}

/** POST /api/machines/:machineId/dirs: one new folder (for a new session), made by the runner under its roots. */
export async function makeMachineDir(deps: HubDeps, who: Requester, machineId: string, path: string) {
  const machine = await requireMachine(deps, who, machineId);
  return recorded(deps, who, { machineId, sid: null, action: 'mkdir', path }, async () => {
    requireUnderRoots(machine, path);
    await requireOnline(deps, machine);
    const answer = await askMachine(deps, machineId, 'machine-mkdir', { path, requestedBy: who.name }, MACHINE_ACK_TIMEOUT_MS);
    return { path: answer.path, dirs: answer.dirs };
  });
}

/**
 * Sends a spawn and waits for the runner's ack (the agent's session stored on the hub). Past the
 * spawn timeout, what it started is stopped by its request id and the answer is `spawn_timeout`.
 */
async function spawn(deps: HubDeps, who: Requester, machine: StoredMachine, payload: Omit<MachineSpawnPayload, 'requestId' | 'requestedBy'>, requestId: string = randomUUID()): Promise<{ sid: string; path?: string }> {
  const waitMs = deps.config.spawnTimeoutMs;
  const timedOut = async () => {
    const stop = await deps.machines?.ask(machine.machineId, 'machine-stop', { requestId, requestedBy: who.name }, MACHINE_ACK_TIMEOUT_MS).catch(() => undefined);
    // "stopped" only on the runner's word; else the person learns it may still run
    const stopped = stop?.ok === true
      ? 'it was stopped'
      : `the runner did not confirm it stopped it (${stop?.ok === false ? stop.error.message : 'no answer'}): it may still run; look at the machine's sessions and the runner's log on ${machine.host}`;
    return new MachineRefused('spawn_timeout', `the ${payload.flavor} agent on "${machine.name}" did not report its session within ${waitMs / 1000} s: ${stopped}`);
  };
  const answer = await askMachine(deps, machine.machineId, 'machine-spawn', { ...payload, requestId, requestedBy: who.name }, waitMs, timedOut);
  return { sid: answer.sid, ...(answer.path !== undefined ? { path: answer.path } : {}) };
}

/** What a person ran the session with, as the hub records it once the runner acknowledged the spawn. */
function originOf(who: Requester, deps: HubDeps, sid: string, machine: StoredMachine, path: string, permissionMode: PermissionMode | undefined): SessionOrigin {
  return { namespace: who.namespace, sid, machineId: machine.machineId, path, permissionMode: permissionMode ?? null, byToken: who.tokenId, at: deps.clock.now() };
}

/**
 * Records where and how a person ran the session. The agent runs already: a failure here is logged,
 * not answered (the session's next Continue then goes by its reported place, as a terminal's).
 */
async function keepOrigin(deps: HubDeps, origin: SessionOrigin): Promise<void> {
  await recordSessionOrigin(deps.store, origin).catch((error: unknown) => deps.log.error({ err: error, sid: origin.sid }, 'could not record where a person ran a session'));
}

/** POST /api/machines/:machineId/sessions: a new agent, 201 once its session exists on the hub. */
export async function startOnMachine(deps: HubDeps, who: Requester, machineId: string, request: StartSessionRequest) {
  const machine = await requireMachine(deps, who, machineId);
  let sid: string | null = null;
  return recorded(deps, who, () => ({ machineId, sid, action: 'start', path: request.path }), async () => {
    requireUnderRoots(machine, request.path);
    requireAgent(machine, request.flavor);
    requireMode(machine, request.permissionMode);
    await requireOnline(deps, machine);
    const requestId = randomUUID();
    const { worktree, ...asked } = request;
    // a worktree's branch is named here, before the agent (and so its session) exists: by the request
    const branch = worktree ? { worktree: { branch: worktree.branch ?? defaultWorktreeBranch(requestId), ...(worktree.base !== undefined ? { base: worktree.base } : {}) } } : {};
    const started = await spawn(deps, who, machine, { ...asked, ...branch }, requestId);
    sid = started.sid;
    // a continue runs where the agent works: its worktree, not the repository it was made from
    await keepOrigin(deps, originOf(who, deps, sid, machine, started.path ?? request.path, request.permissionMode));
    return { sid, machineId };
  });
}

/**
 * The mode of a Continue that names none: the one the person last ran the session with, as the hub
 * recorded it; never bypass, which is used only when asked for again (`default` then, said so in
 * the spawn and the session's metadata); none recorded (a terminal's session): none, the agent's own
 * default. Never metadata's `permissionMode`: runners write it.
 */
function carriedMode(origin: SessionOrigin | undefined): PermissionMode | undefined {
  const mode = PermissionModeSchema.safeParse(origin?.permissionMode).data;
  return mode === 'bypassPermissions' ? 'default' : mode;
}

const running = (sid: string) => new MachineRefused('session_running', `session ${sid} has a live run, or a continue of it is starting: send it a message instead, or interrupt or stop it first`);

/** Past the spawn's own timeout and the stop that follows it: a claim left by a hub process that died mid-spawn. */
const claimLifetimeMs = (deps: HubDeps) => deps.config.spawnTimeoutMs + 2 * MACHINE_ACK_TIMEOUT_MS;

/** GET /api/sessions/:sid/continue: where a Continue would run now, or the refusal it would get (nothing is written). */
export async function continuePlace(deps: HubDeps, who: Requester, sid: string): Promise<ContinuePlaceResponse> {
  const session = await requireSession(deps.store, who, sid);
  if (session.lastRun?.status === 'running') throw running(sid);
  const origin = await getSessionOrigin(deps.store, { namespace: who.namespace, sid });
  const place = await machineFor(deps, session, origin, undefined);
  requireAgent(place.machine, session.flavor);
  return { machineId: place.machine.machineId, name: place.machine.name, host: place.machine.host, path: place.path };
}

/**
 * POST /api/sessions/:sid/continue: the same session, a new run, on a machine that can run it;
 * through the gate of section 7. One at a time per session: the spawn is claimed in the store
 * first (any hub process), the session read again under the claim, the claim released once the
 * runner answered (its run is then live, and refuses the next continue by itself).
 */
export async function continueOnMachine(deps: HubDeps, who: Requester, sid: string, request: ContinueSessionRequest) {
  const asked = await requireSession(deps.store, who, sid);
  const origin = await getSessionOrigin(deps.store, { namespace: who.namespace, sid });
  let machineId: string | null = request.machineId ?? origin?.machineId ?? null;
  let path: string | null = origin?.path ?? placeOf(asked).path ?? null;
  return recorded(deps, who, () => ({ machineId, sid, action: 'continue', path }), async () => {
    const requestId = randomUUID();
    const claim = { namespace: who.namespace, sid, requestId };
    const now = deps.clock.now();
    if (!(await claimSessionRun(deps.store, { ...claim, now, expiresAt: now + claimLifetimeMs(deps) }))) throw running(sid);
    try {
      const session = await requireSession(deps.store, who, sid);
      if (session.lastRun?.status === 'running') throw running(sid);
      // where it would run first (issue 46.5): "continue anyway?" is no question when no machine can
      const place = await machineFor(deps, session, origin, request.machineId);
      machineId = place.machine.machineId;
      path = place.path;
      const permissionMode = request.permissionMode ?? carriedMode(origin);
      requireAgent(place.machine, session.flavor);
      requireMode(place.machine, permissionMode);
      const resume = await resumeSession(deps, { namespace: who.namespace, role: 'operator', by: 'user' }, sid, request.policy);
      const tokenProblem = resumeTokenProblem(session.flavor, resume.token);
      if (tokenProblem !== null) {
        throw new MachineRefused('invalid_payload', `session ${sid} cannot be continued by a machine: its resume token (${resume.tokenKey}) ${tokenProblem}; it was not written by the agent`);
      }
      // the continued agent takes the session's messages, whoever took them before (docs/messages.md)
      const takerKey = await runWrite(deps, (tx, _changes, now) => handTakerToContinue(tx, { namespace: who.namespace, sid }, `machine ${place.machine.name}: continue`, now), { namespace: who.namespace });
      await spawn(
        deps,
        who,
        place.machine,
        {
          flavor: session.flavor,
          path: place.path,
          ...(request.prompt !== undefined ? { prompt: request.prompt } : {}),
          ...(permissionMode !== undefined ? { permissionMode } : {}),
          resume: { sid, tokenKey: resume.tokenKey, token: String(resume.token), takerKey },
        },
        requestId,
      );
      await keepOrigin(deps, originOf(who, deps, sid, place.machine, place.path, permissionMode));
      return { sid, machineId: place.machine.machineId };
    } finally {
      // the agent runs (or did not start) whatever this write does: a claim not removed expires
      await releaseSessionRun(deps.store, claim).catch((error: unknown) => deps.log.error({ err: error, sid }, 'could not release a continue claim; it expires'));
    }
  });
}

/** POST /api/sessions/:sid/interrupt and /stop: to the machine runner that drives the session's live run. */
export async function actOnRun(deps: HubDeps, who: Requester, sid: string, action: 'interrupt' | 'stop') {
  const session = await requireSession(deps.store, who, sid);
  // the machine the hub ran it on, where a person started or continued it; else what was reported
  const origin = await getSessionOrigin(deps.store, { namespace: who.namespace, sid });
  const machineId = origin?.machineId ?? placeOf(session).machineId;
  const path = origin?.path ?? placeOf(session).path;
  return recorded(deps, who, { machineId: machineId ?? null, sid, action, path: path ?? null }, async () => {
    if (session.lastRun?.status !== 'running') throw new MachineRefused('not_runner_driven', `session ${sid} has no live run: nothing to ${action}; continue it instead`);
    const notDriven = () => new MachineRefused('not_runner_driven', `no machine runner drives session ${sid} (it was started in a terminal or by another runner): ${action} it where it runs`);
    if (machineId === undefined) throw notDriven();
    const machine = await getMachine(deps.store, { namespace: who.namespace, machineId });
    if (!machine) throw notDriven();
    await requireOnline(deps, machine);
    const event = action === 'interrupt' ? 'machine-interrupt' : 'machine-stop';
    const closeAsks = (message: string) => cancelRunnerAsks(deps, { namespace: who.namespace }, sid, { message, decidedBy: who.tokenId, decidedByLabel: who.label });
    try {
      // a Stop closes what waits on a person first, as the person's: the run's own end (its
      // session-end, before the stop's ack) would otherwise close them with no one named
      if (action === 'stop') await closeAsks('a Stop was asked before anyone decided');
      // a stop is acked once the process tree is gone: TERM, then KILL after 10 s
      await askMachine(deps, machineId, event, { sid, requestedBy: who.name }, action === 'stop' ? STOP_KILL_AFTER_MS + MACHINE_ACK_TIMEOUT_MS : MACHINE_ACK_TIMEOUT_MS);
      // what the interrupted turn left waiting on a person closes with it: a decision now would reach nobody
      if (action === 'interrupt') await closeAsks('the turn was interrupted before anyone decided');
    } catch (error) {
      // the runner does not drive it (a terminal agent on the same computer)
      if (error instanceof MachineRefused && error.code === 'not_found') throw notDriven();
      throw error;
    }
    return { sid, machineId };
  });
}
