/**
 * Runner sockets of one session may be on several hub processes. When the last one on this process
 * goes, the run is only lost if no other process still holds one: this asks them (through the Redis
 * adapter) and hands the run to a process that does, so that if that one dies later, its runs are
 * recognised as its own (runs.hub_id).
 */
import type { RunnersHeld } from '../../shared/protocol/events.js';
import type { RunnerBindings } from '../lifecycle/bindings.js';
import type { Logger } from '../log.js';
import type { RunnerPresence } from '../services/deps.js';
import type { RunnerNamespace } from './types.js';

export function createClusterRunnerPresence(options: {
  runners: RunnerNamespace;
  bindings: RunnerBindings;
  hubId: string;
  log: Logger;
}): RunnerPresence & { drain(): Promise<void>; close(): void } {
  const { runners, bindings, hubId, log } = options;
  const answer = (sids: unknown, reply: unknown) => {
    if (typeof reply !== 'function') return;
    const asked = Array.isArray(sids) ? sids.filter((sid): sid is string => typeof sid === 'string') : [];
    (reply as (held: RunnersHeld) => void)({ hubId, sids: asked.filter((sid) => bindings.isBound(sid)) });
  };
  runners.on('runner-sockets', answer);
  const inFlight = new Set<Promise<unknown>>();
  const heldElsewhere = async (sids: readonly string[]): Promise<Map<string, string>> => {
    const holders = new Map<string, string>();
    if (sids.length === 0) return holders;
    let answers: RunnersHeld[];
    try {
      // waits for every other process of the cluster (the adapter counts them), at most the
      // adapter's request timeout
      answers = await runners.serverSideEmitWithAck('runner-sockets', [...sids]);
    } catch (error) {
      // some process did not answer: the runs start their grace; a runner still connected there
      // reclaims its run with its next heartbeat
      log.warn({ err: error, sessions: sids.length }, 'not every hub process said which runners it holds; treating them as gone');
      return holders;
    }
    for (const held of answers) for (const sid of held.sids ?? []) if (!holders.has(sid)) holders.set(sid, held.hubId);
    return holders;
  };
  return {
    heldElsewhere(sids) {
      const asking = heldElsewhere(sids);
      inFlight.add(asking);
      void asking.finally(() => inFlight.delete(asking));
      return asking;
    },
    /** Settles once the questions asked so far are answered (shutdown: their writes queue first). */
    async drain() {
      await Promise.allSettled([...inFlight]);
    },
    close() {
      runners.off('runner-sockets', answer);
    },
  };
}
