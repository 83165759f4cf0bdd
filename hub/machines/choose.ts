/**
 * Which machine continues a session (spec section 14): the one asked for; else the one that ran it
 * (`machineId` in its metadata, set by the runner, or by the hook bridge where a runner is installed
 * on the agent's computer) when it is online and its roots hold the session's directory; else an
 * online machine of the same `host` whose roots hold it and that has the session's agent.
 */
import { MACHINE_METADATA_KEYS } from '../../shared/protocol/machines.js';
import type { HubDeps } from '../services/deps.js';
import type { StoredSession } from '../store/sessions.js';
import { getMachine, listMachinesOnHost, type StoredMachine } from '../store/machines.js';
import { MachineRefused } from './refused.js';
import { isUnderRoots } from './roots.js';

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The session's directory, host and recorded machine, from its metadata. */
export function placeOf(session: StoredSession): { path: string | undefined; host: string | undefined; machineId: string | undefined } {
  const { metadata } = session;
  return { path: text(metadata[MACHINE_METADATA_KEYS.path]), host: text(metadata[MACHINE_METADATA_KEYS.host]), machineId: text(metadata[MACHINE_METADATA_KEYS.machineId]) };
}

export async function machineFor(deps: HubDeps, session: StoredSession, requested: string | undefined): Promise<StoredMachine> {
  const { namespace } = session;
  const place = placeOf(session);
  if (place.path === undefined) {
    throw new MachineRefused('no_machine', `session ${session.sid} has no directory (metadata.path): it cannot be continued by a machine; start a new session instead`);
  }
  const path = place.path;
  const online = (await deps.machines?.onlineIds(namespace)) ?? new Set<string>();
  const fits = (machine: StoredMachine) => online.has(machine.machineId) && isUnderRoots(path, machine.roots);
  if (requested !== undefined) {
    const machine = await getMachine(deps.store, { namespace, machineId: requested });
    if (!machine) throw new MachineRefused('machine_not_found', `no machine ${requested} in this namespace: see GET /api/machines`);
    if (!online.has(requested)) throw new MachineRefused('machine_offline', `machine "${machine.name}" is not connected: start its runner on ${machine.host} and retry`);
    if (!isUnderRoots(path, machine.roots)) {
      throw new MachineRefused('path_outside_roots', `${path} is not under a root of machine "${machine.name}" (${machine.roots.join(', ')}): restart its runner with --root covering it`);
    }
    return machine;
  }
  const recorded = place.machineId === undefined ? undefined : await getMachine(deps.store, { namespace, machineId: place.machineId });
  if (recorded && fits(recorded)) return recorded;
  const hasAgent = (machine: StoredMachine) => machine.agents.some((agent) => agent.flavor === session.flavor);
  const sameHost = place.host === undefined ? [] : await listMachinesOnHost(deps.store, { namespace, host: place.host });
  const chosen = sameHost.find((machine) => fits(machine) && hasAgent(machine)) ?? sameHost.find(fits);
  if (chosen) return chosen;
  if (recorded && !online.has(recorded.machineId)) {
    throw new MachineRefused('machine_offline', `machine "${recorded.name}" that ran this session is not connected: start its runner on ${recorded.host} and retry`);
  }
  const host = place.host === undefined ? 'its host (unknown: its hooks did not report one; update the hook bridge there)' : `host "${place.host}"`;
  throw new MachineRefused('no_machine', `no online machine can continue this session: it needs a runner on ${host} with a root holding ${path} (session-hub runner --root <dir>)`);
}
