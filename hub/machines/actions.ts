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
  type ContinueSessionRequest,
  type ListedMachine,
  type MachineSpawnPayload,
  type PermissionMode,
  type StartSessionRequest,
} from '../../shared/protocol/machines.js';
import type { HubDeps } from '../services/deps.js';
import { runWrite } from '../services/changes.js';
import { requireSession } from '../services/require-session.js';
import { handTakerToContinue } from '../people/message-takers.js';
import { resumeSession } from '../services/resume.js';
import { getMachine, listMachines, recentMachinePaths, type StoredMachine } from '../store/machines.js';
import { askMachine, recorded } from './ask.js';
import { machineFor, placeOf } from './choose.js';
import { MachineRefused } from './refused.js';
import type { Requester } from './requester.js';
import { isUnderRoots } from './roots.js';
import { machineView } from './view.js';

const RECENT_PATHS = 8;

export async function listMachinesFor(deps: HubDeps, namespace: string): Promise<ListedMachine[]> {
  const [stored, online] = await Promise.all([listMachines(deps.store, namespace), deps.machines?.onlineIds(namespace) ?? new Set<string>()]);
  return Promise.all(
    stored.map(async (machine) => ({
      ...machineView(machine, online.has(machine.machineId)),
      recentPaths: await recentMachinePaths(deps.store, { namespace, machineId: machine.machineId, limit: RECENT_PATHS }),
    })),
  );
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

/**
 * Sends a spawn and waits for the runner's ack (the agent's session stored on the hub). Past the
 * spawn timeout, what it started is stopped by its request id and the answer is `spawn_timeout`.
 */
async function spawn(deps: HubDeps, who: Requester, machine: StoredMachine, payload: Omit<MachineSpawnPayload, 'requestId' | 'requestedBy'>): Promise<string> {
  const requestId = randomUUID();
  const waitMs = deps.config.spawnTimeoutMs;
  const timedOut = async () => {
    await deps.machines?.ask(machine.machineId, 'machine-stop', { requestId, requestedBy: who.name }, MACHINE_ACK_TIMEOUT_MS).catch(() => undefined);
    return new MachineRefused('spawn_timeout', `the ${payload.flavor} agent on "${machine.name}" did not report its session within ${waitMs / 1000} s: it was stopped; check the runner's log on ${machine.host}`);
  };
  const answer = await askMachine(deps, machine.machineId, 'machine-spawn', { ...payload, requestId, requestedBy: who.name }, waitMs, timedOut);
  return answer.sid;
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
    sid = await spawn(deps, who, machine, request);
    return { sid, machineId };
  });
}

const modeOf = (value: unknown): PermissionMode | undefined => PermissionModeSchema.safeParse(value).data;

/** POST /api/sessions/:sid/continue: the same session, a new run, on a machine that can run it; through the gate of section 7. */
export async function continueOnMachine(deps: HubDeps, who: Requester, sid: string, request: ContinueSessionRequest) {
  const session = await requireSession(deps.store, who, sid);
  let machineId: string | null = placeOf(session).machineId ?? null;
  return recorded(deps, who, () => ({ machineId, sid, action: 'continue', path: placeOf(session).path ?? null }), async () => {
    if (session.lastRun?.status === 'running') {
      throw new MachineRefused('session_running', `session ${sid} has a live run: send it a message instead, or interrupt or stop it first`);
    }
    const resume = await resumeSession(deps, { namespace: who.namespace, role: 'operator', by: 'user' }, sid, request.policy);
    const machine = await machineFor(deps, session, request.machineId);
    machineId = machine.machineId;
    const permissionMode = request.permissionMode ?? modeOf(session.metadata.permissionMode);
    requireAgent(machine, session.flavor);
    requireMode(machine, permissionMode);
    // the continued agent takes the session's messages, whoever took them before (docs/messages.md)
    const takerKey = await runWrite(deps, (tx, _changes, now) => handTakerToContinue(tx, { namespace: who.namespace, sid }, `machine ${machine.name}: continue`, now), { namespace: who.namespace });
    await spawn(deps, who, machine, {
      flavor: session.flavor,
      path: resume.path ?? '',
      ...(request.prompt !== undefined ? { prompt: request.prompt } : {}),
      ...(permissionMode !== undefined ? { permissionMode } : {}),
      resume: { sid, tokenKey: resume.tokenKey, token: String(resume.token), takerKey },
    });
    return { sid, machineId: machine.machineId };
  });
}

/** POST /api/sessions/:sid/interrupt and /stop: to the machine runner that drives the session's live run. */
export async function actOnRun(deps: HubDeps, who: Requester, sid: string, action: 'interrupt' | 'stop') {
  const session = await requireSession(deps.store, who, sid);
  const { machineId, path } = placeOf(session);
  return recorded(deps, who, { machineId: machineId ?? null, sid, action, path: path ?? null }, async () => {
    if (session.lastRun?.status !== 'running') throw new MachineRefused('not_runner_driven', `session ${sid} has no live run: nothing to ${action}; continue it instead`);
    const notDriven = () => new MachineRefused('not_runner_driven', `no machine runner drives session ${sid} (it was started in a terminal or by another runner): ${action} it where it runs`);
    if (machineId === undefined) throw notDriven();
    const machine = await getMachine(deps.store, { namespace: who.namespace, machineId });
    if (!machine) throw notDriven();
    await requireOnline(deps, machine);
    const event = action === 'interrupt' ? 'machine-interrupt' : 'machine-stop';
    try {
      // a stop is acked once the process tree is gone: TERM, then KILL after 10 s
      await askMachine(deps, machineId, event, { sid, requestedBy: who.name }, action === 'stop' ? STOP_KILL_AFTER_MS + MACHINE_ACK_TIMEOUT_MS : MACHINE_ACK_TIMEOUT_MS);
    } catch (error) {
      // the runner does not drive it (a terminal agent on the same computer)
      if (error instanceof MachineRefused && error.code === 'not_found') throw notDriven();
      throw error;
    }
    return { sid, machineId };
  });
}
