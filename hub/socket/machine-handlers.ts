/**
 * `machine-register` on `/runner` (spec section 14). The registering socket joins the machine's
 * room, so hub → runner requests reach it from any hub process; the machine is online while it is
 * connected. One socket per machine: an earlier one (a runner left running, a connection not yet
 * timed out) is told and let go, so one request never starts two agents.
 */
import { MachineRegisterPayloadSchema } from '../../shared/protocol/machines.js';
import type { RunnerClientToServerEvents } from '../../shared/protocol/events.js';
import { machineSocketLost, registerMachine } from '../machines/register.js';
import type { HubDeps } from '../services/deps.js';
import { eventHandlers, type HandleOptions } from './handle.js';
import { rooms } from './rooms.js';
import type { RunnerNamespace, RunnerSocket } from './types.js';

export function registerMachineHandlers(socket: RunnerSocket, runners: RunnerNamespace, deps: HubDeps, options: HandleOptions): void {
  const on = eventHandlers<RunnerClientToServerEvents>(socket, options);
  on('machine-register', MachineRegisterPayloadSchema, 'ok', async (payload) => {
    const machine = await registerMachine(deps, socket.data.identity, payload);
    if (socket.disconnected) return { ok: true, machine: { ...machine, online: false } };
    const room = rooms.machine(machine.machineId);
    const previous = socket.data.machineId;
    if (previous !== undefined && previous !== machine.machineId) void socket.leave(rooms.machine(previous));
    if (previous !== machine.machineId) {
      const others = runners.in(room).except(socket.id);
      others.emit('error', { code: 'conflict', message: `machine ${machine.machineId} was registered again by another connection; this one is let go`, event: 'machine-register' });
      others.disconnectSockets();
    }
    socket.data.machineId = machine.machineId;
    void socket.join(room);
    socket.data.log.info({ machineId: machine.machineId, name: machine.name, host: machine.host, roots: machine.roots, agents: machine.agents.map((agent) => agent.flavor) }, 'machine registered');
    return { ok: true, machine };
  });
  socket.on('disconnect', () => {
    const { machineId } = socket.data;
    if (machineId === undefined) return;
    socket.data.log.info({ machineId }, 'machine offline');
    machineSocketLost(deps, machineId).catch((error: unknown) => socket.data.log.warn({ err: error, machineId }, 'could not record when the machine was last seen'));
  });
}
