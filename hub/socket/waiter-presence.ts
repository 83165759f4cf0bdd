/**
 * A session's message waiter (the hook bridge's `--wake` long poll) waits on whichever hub process
 * its request reached, so the reach a page reads on another process (docs/messages.md, "When does
 * a reply reach the agent?") asks the others through the Redis adapter: a waiter connected now,
 * on any process, is what "now" means.
 */
import type { Logger } from '../log.js';
import type { HubDeps, WaiterPresence } from '../services/deps.js';
import type { RunnerNamespace } from './types.js';
import { liveWaiterUntil } from '../people/message-waiters.js';

export function createClusterWaiterPresence(options: { runners: RunnerNamespace; local: () => HubDeps | undefined; log: Logger }): WaiterPresence & { close(): void } {
  const { runners, local, log } = options;
  const answer = (key: unknown, reply: unknown) => {
    if (typeof reply !== 'function') return;
    const deps = local();
    const { namespace, tag } = (key ?? {}) as { namespace?: unknown; tag?: unknown };
    const until = deps && typeof namespace === 'string' && typeof tag === 'string' ? liveWaiterUntil(deps, namespace, tag) : undefined;
    (reply as (until: number | null) => void)(until ?? null);
  };
  runners.on('message-waiters', answer);
  return {
    async untilElsewhere(namespace, tag) {
      let answers: (number | null)[];
      try {
        // waits for every other process, at most the adapter's request timeout
        answers = await runners.serverSideEmitWithAck('message-waiters', { namespace, tag });
      } catch (error) {
        // a process that did not answer: its waiters count as gone until it does ("next stop", never a false "now")
        log.warn({ err: error }, 'not every hub process said which message waiters it holds');
        return undefined;
      }
      const untils = answers.filter((until): until is number => typeof until === 'number');
      return untils.length > 0 ? Math.max(...untils) : undefined;
    },
    close() {
      runners.off('message-waiters', answer);
    },
  };
}
