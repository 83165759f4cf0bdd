/**
 * Reaching a machine runner from whichever hub process took the request (spec section 14): its
 * socket joined the machine's room when it registered, and a broadcast with acks to that room goes
 * through the adapter (Redis in a cluster) to the process that holds it. Which machines are online
 * is asked of every process the same way (`machines-online`). A request whose runner disconnects
 * before it answered is given up at once (MachineGone), not after its whole timeout.
 */

/** How often a request waiting for a runner's answer checks that the runner is still connected (any process). */
const GONE_CHECK_MS = 500;
import { MachineGone } from '../machines/refused.js';
import type { MachineCalls, MachineLink } from '../services/deps.js';
import type { Logger } from '../log.js';
import { rooms } from './rooms.js';
import type { RunnerNamespace } from './types.js';

export function createMachineLink(runners: RunnerNamespace, options: { cluster: boolean; log: Logger }): MachineLink & { close(): void } {
  const localIds = (namespace: string) => {
    const ids: string[] = [];
    for (const socket of runners.sockets.values()) {
      if (socket.data.machineId !== undefined && socket.data.identity.namespace === namespace) ids.push(socket.data.machineId);
    }
    return ids;
  };
  const answer = (namespace: unknown, reply: unknown) => {
    if (typeof reply === 'function') (reply as (ids: string[]) => void)(typeof namespace === 'string' ? localIds(namespace) : []);
  };
  if (options.cluster) runners.on('machines-online', answer);
  return {
    async onlineIds(namespace) {
      const ids = new Set(localIds(namespace));
      if (!options.cluster) return ids;
      try {
        // waits for every other process, at most the adapter's request timeout
        const answers = await runners.serverSideEmitWithAck('machines-online', namespace);
        for (const held of answers) for (const id of held ?? []) ids.add(id);
      } catch (error) {
        // a process that did not answer: its machines look offline until it does
        options.log.warn({ err: error }, 'not every hub process said which machines it holds');
      }
      return ids;
    },
    async ask<E extends keyof MachineCalls>(machineId: string, event: E, payload: MachineCalls[E][0], timeoutMs: number) {
      const target = runners.to(rooms.machine(machineId)).timeout(timeoutMs) as unknown as {
        emitWithAck(event: E, payload: MachineCalls[E][0]): Promise<MachineCalls[E][1][]>;
      };
      const room = rooms.machine(machineId);
      let watching: NodeJS.Timeout | undefined;
      const gone = new Promise<never>((_, reject) => {
        const check = () => {
          // the room's sockets on every process (the adapter asks the others in a cluster)
          void runners.in(room).fetchSockets().then(
            (sockets) => (sockets.length === 0 ? reject(new MachineGone(machineId)) : (watching = setTimeout(check, GONE_CHECK_MS))),
            () => (watching = setTimeout(check, GONE_CHECK_MS)),
          );
        };
        watching = setTimeout(check, GONE_CHECK_MS);
      });
      gone.catch(() => undefined); // a check still on its way when the answer came
      try {
        const answers = await Promise.race([target.emitWithAck(event, payload), gone]);
        return answers[0];
      } finally {
        clearTimeout(watching);
      }
    },
    close() {
      runners.off('machines-online', answer);
    },
  };
}
