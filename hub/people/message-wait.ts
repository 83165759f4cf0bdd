/**
 * A background hook waiting for a person's message (Claude Code's asyncRewake Stop hook wakes the
 * idle agent with it; docs/messages.md). A message queued on this process wakes the waiter at once;
 * one queued on another hub process sharing the store is read within `pollMs`. Only the session's
 * own waiter takes (its taker proof); one that is not is refused 403 and displaces nothing.
 */
import { hubError } from '../../shared/errors.js';
import type { Message, Taker } from '../../shared/protocol/messages.js';
import { runWrite } from '../services/changes.js';
import type { Actor, HubDeps } from '../services/deps.js';
import { isClosing, registerWaiter, type MessageWaiter } from './message-waiters.js';
import { listQueuedMessages } from '../store/messages.js';
import { getSessionByTag, type StoredSession } from '../store/sessions.js';
import { deliverQueuedIn } from './message-delivery.js';
import { proveTaker } from './message-takers.js';

/** How often a waiter reads the store, for messages queued on another hub process. */
export const MESSAGE_POLL_MS = 1000;

export interface WaitResult {
  messages: Message[];
  /** Always false: no waiter replaces another (kept in the answer for bridges that read it). */
  replaced: false;
}

/**
 * Waits up to `waitMs` for queued messages of the agent session `tag` (its hub session found by tag,
 * which the same stop's synchronous hook may create a moment later), takes what fits one answer as
 * `wake:<event>` (a turn opens with their text), and returns them. Nothing in time, or a hub
 * closing: no messages. A waiter whose `taker` is not the session's: 403 `forbidden`, nothing taken.
 * `signal` aborted (the waiting token revoked): throws its reason, having taken nothing since.
 */
export async function waitForMessages(
  deps: HubDeps,
  actor: Actor,
  input: { tag: string; event: string; waitMs: number; taker?: Taker | undefined },
  options: { pollMs?: number; signal?: AbortSignal } = {},
): Promise<WaitResult> {
  const pollMs = options.pollMs ?? MESSAGE_POLL_MS;
  const { signal } = options;
  let wakeUp: () => void = () => {};
  const self: MessageWaiter = {
    namespace: actor.namespace,
    sid: undefined,
    until: deps.clock.now() + input.waitMs,
    woken: false,
    wake: () => {
      self.woken = true;
      wakeUp();
    },
  };
  const unregister = registerWaiter(deps, `${actor.namespace}\u0000${input.tag}`, self);
  const deadline = performance.now() + input.waitMs;
  // the wait's token revoked: it ends now, and takes nothing queued after (the reason is a 401)
  const onAbort = () => self.wake();
  signal?.addEventListener('abort', onAbort);
  let session: StoredSession | undefined;
  let takenBy: string | undefined;
  try {
    for (;;) {
      self.woken = false;
      signal?.throwIfAborted();
      if (isClosing(deps)) return { messages: [], replaced: false };
      session ??= await getSessionByTag(deps.store, { namespace: actor.namespace, tag: input.tag });
      if (session) {
        const found = session;
        // proved once: a session's key never changes once registered
        if (takenBy === undefined) {
          const proof = await runWrite(deps, (tx, _changes, now) => proveTaker(tx, found, input.taker, now));
          if (!proof.ok) throw hubError.forbidden(proof.why);
          takenBy = proof.process;
        }
        self.sid = found.sid;
        const taker = { via: `wake:${input.event}`, takenBy };
        // a read first: a write only when something is queued (many idle sessions each have a waiter)
        if ((await listQueuedMessages(deps.store, found.sid)).length > 0) {
          signal?.throwIfAborted();
          const taken = await runWrite(deps, (tx, changes, now) => deliverQueuedIn(tx, changes, actor, found, taker, now));
          if (taken.length > 0) return { messages: taken, replaced: false };
        }
      }
      const remaining = deadline - performance.now();
      if (remaining <= 0) return { messages: [], replaced: false };
      if (self.woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(pollMs, remaining));
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wakeUp = () => {};
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    unregister();
  }
}
