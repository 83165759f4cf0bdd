import type { Machine } from '../../shared/protocol/machines.js';
import type { StoredMachine } from '../store/machines.js';

/** A stored machine as the API shows it; `online` is whether its socket is connected now. */
export function machineView(stored: StoredMachine, online: boolean): Machine {
  const { machineId, name, host, platform, roots, agents, allowBypass, tokenLabel, lastSeenAt } = stored;
  return { machineId, name, host, platform, online, lastSeenAt, roots, agents, allowBypass, tokenLabel };
}
