/**
 * Which machine continues a session, in which directory (spec section 14, docs/machines.md "What
 * runs"). Never a guess between machines, never a field a lower role chose over what a person did:
 * 1. the machine the person names in the request;
 * 2. else the machine and directory the hub recorded when a person started or last continued the
 *    session (its origin), whatever metadata says now;
 * 3. else (a session started in a terminal: the hub knows only what its hooks reported) the one
 *    online machine of the reported host whose roots hold the reported path and that has the
 *    session's agent. Several fit: `no_machine`, naming them, for the person to choose one with
 *    `machineId`. The `machineId` its hooks reported is not a reason to pick one: an agent token
 *    writes it, and the machine that gets a Continue gets its prompt and resume token.
 */
import { MACHINE_METADATA_KEYS } from '../../shared/protocol/machines.js';
import type { HubDeps } from '../services/deps.js';
import type { SessionOrigin } from '../store/machine-session-runs.js';
import type { StoredSession } from '../store/sessions.js';
import { getMachine, listMachinesOnHost, type StoredMachine } from '../store/machines.js';
import { MachineRefused } from './refused.js';
import { isUnderRoots } from './roots.js';

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The session's directory, host and machine as runners and hooks reported them (its metadata). */
export function placeOf(session: StoredSession): { path: string | undefined; host: string | undefined; machineId: string | undefined } {
  const { metadata } = session;
  return { path: text(metadata[MACHINE_METADATA_KEYS.path]), host: text(metadata[MACHINE_METADATA_KEYS.host]), machineId: text(metadata[MACHINE_METADATA_KEYS.machineId]) };
}

const label = (machine: StoredMachine) => `"${machine.name}" (${machine.machineId}, token ${machine.tokenLabel ?? machine.tokenId})`;

async function requireUsable(deps: HubDeps, namespace: string, machineId: string, path: string, online: ReadonlySet<string>, whose: string): Promise<StoredMachine> {
  const machine = await getMachine(deps.store, { namespace, machineId });
  if (!machine) throw new MachineRefused('machine_not_found', `no machine ${machineId} in this namespace (${whose}): see GET /api/machines`);
  if (!online.has(machineId)) throw new MachineRefused('machine_offline', `machine "${machine.name}" (${whose}) is not connected: start its runner on ${machine.host} and retry`);
  if (!isUnderRoots(path, machine.roots)) {
    throw new MachineRefused('path_outside_roots', `${path} is not under a root of machine "${machine.name}" (${machine.roots.join(', ')}): restart its runner with --root covering it`);
  }
  return machine;
}

/** The machine and directory a Continue uses. */
export async function machineFor(deps: HubDeps, session: StoredSession, origin: SessionOrigin | undefined, requested: string | undefined): Promise<{ machine: StoredMachine; path: string }> {
  const { namespace } = session;
  const place = placeOf(session);
  const path = origin?.path ?? place.path;
  if (path === undefined) {
    throw new MachineRefused('no_machine', `session ${session.sid} has no directory (metadata.path): it cannot be continued by a machine; start a new session instead`);
  }
  const online = (await deps.machines?.onlineIds(namespace)) ?? new Set<string>();
  if (requested !== undefined) return { machine: await requireUsable(deps, namespace, requested, path, online, 'the one asked for'), path };
  if (origin) return { machine: await requireUsable(deps, namespace, origin.machineId, path, online, 'the one a person ran this session on'), path };

  const sameHost = place.host === undefined ? [] : await listMachinesOnHost(deps.store, { namespace, host: place.host });
  const fitting = sameHost.filter((machine) => online.has(machine.machineId) && isUnderRoots(path, machine.roots) && machine.agents.some((agent) => agent.flavor === session.flavor));
  if (fitting.length === 1) return { machine: fitting[0]!, path };
  if (fitting.length > 1) {
    throw new MachineRefused('no_machine', `${fitting.length} online machines of host "${place.host}" can continue this session: ${fitting.map(label).join(', ')}; choose one with machineId`);
  }
  const reported = place.machineId === undefined ? undefined : sameHost.find((machine) => machine.machineId === place.machineId);
  if (reported && !online.has(reported.machineId)) {
    throw new MachineRefused('machine_offline', `machine "${reported.name}" that ran this session is not connected: start its runner on ${reported.host} and retry`);
  }
  const host = place.host === undefined ? 'its host (unknown: its hooks did not report one; update the hook bridge there)' : `host "${place.host}"`;
  throw new MachineRefused('no_machine', `no online machine can continue this session: it needs a runner on ${host} with a root holding ${path} and the ${session.flavor} CLI (session-hub runner --root <dir>)`);
}
