/**
 * A person's queued messages handed to the agent by one of its hooks (docs/messages.md): taken in
 * the hook event's unit of work, and shown as what they are to the agent, its next prompt: a turn
 * opens with their text, and the session no longer waits for anyone.
 */
import { hookFieldsOf, messageHookAnswer, messageHookOf } from '../../shared/flavors.js';
import { readText } from '../../shared/json-path.js';
import type { HookEvent } from '../../shared/protocol/hooks.js';
import type { JsonObject } from '../../shared/protocol/json.js';
import type { Message } from '../../shared/protocol/messages.js';
import { submitPromptWork } from '../lifecycle/turn-events.js';
import type { ChangeSet } from '../services/changes.js';
import type { Actor } from '../services/deps.js';
import { getSession } from '../store/sessions.js';
import type { Tx } from '../store/sql.js';
import { applyAttention } from './attention.js';
import { proveTaker } from './message-takers.js';
import { takeQueuedIn } from './messages.js';

/** The texts as the agent gets them: the person's words, in order, a blank line between two messages. */
export function promptOf(messages: readonly Message[]): string {
  return messages.map((message) => message.text).join('\n\n');
}

/** Takes what fits one answer (takeQueuedIn) for a proven taker, and opens the turn the agent works on with it. */
export async function deliverQueuedIn(tx: Tx, changes: ChangeSet, actor: Actor, session: { namespace: string; sid: string }, taker: { via: string; takenBy: string }, now: number): Promise<Message[]> {
  const taken = await takeQueuedIn(tx, changes, session, taker, now);
  if (taken.length === 0) return taken;
  await submitPromptWork(actor, { sid: session.sid, prompt: promptOf(taken) })(tx, changes, now);
  const current = await getSession(tx, session);
  if (current) await applyAttention(tx, changes, current, null, now);
  return taken;
}

/**
 * A hook event of the session: its taker key (when it carries one) is registered if the session has
 * none yet, so the process that opens a session is the one whose key counts. Then, for a message hook
 * sent by the hook process that prints its answer (`take`) and proves it is the session's own: the
 * queued messages that fit one answer, delivered as `hook:<event>`, in the flavor's output; none
 * queued (or not a message hook): no answer; not proven: `refused` says why, nothing taken.
 */
export async function messageHookAnswerIn(tx: Tx, changes: ChangeSet, actor: Actor, event: HookEvent, session: { namespace: string; sid: string }, at: number): Promise<{ answer?: JsonObject; refused?: string }> {
  const hookName = readText(event.payload, hookFieldsOf(event.flavor, event.payload).event);
  const output = event.take === true ? messageHookOf(event.flavor, hookName) : undefined;
  if (!output) {
    if (event.taker) await proveTaker(tx, session, event.taker, at);
    return {};
  }
  const proof = await proveTaker(tx, session, event.taker, at);
  if (!proof.ok) return { refused: proof.why };
  const taken = await deliverQueuedIn(tx, changes, actor, session, { via: `hook:${hookName}`, takenBy: proof.process }, at);
  return taken.length === 0 ? {} : { answer: messageHookAnswer(output, taken.map((message) => message.text)) };
}
