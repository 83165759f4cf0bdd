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
import { takeQueuedIn } from './messages.js';

/** The texts as the agent gets them: the person's words, in order, a blank line between two messages. */
export function promptOf(messages: readonly Message[]): string {
  return messages.map((message) => message.text).join('\n\n');
}

export async function deliverQueuedIn(tx: Tx, changes: ChangeSet, actor: Actor, session: { namespace: string; sid: string }, via: string, now: number): Promise<Message[]> {
  const taken = await takeQueuedIn(tx, changes, session, via, now);
  if (taken.length === 0) return taken;
  await submitPromptWork(actor, { sid: session.sid, prompt: promptOf(taken) })(tx, changes, now);
  const current = await getSession(tx, session);
  if (current) await applyAttention(tx, changes, current, null, now);
  return taken;
}

/**
 * A message hook sent by the hook process that prints its answer (`take`), in the hook event's unit
 * of work: the session's queued messages, delivered as `hook:<event>`, in the flavor's output; none
 * queued (or not a message hook): no answer.
 */
export async function messageHookAnswerIn(tx: Tx, changes: ChangeSet, actor: Actor, event: HookEvent, session: { namespace: string; sid: string }, at: number): Promise<JsonObject | undefined> {
  if (event.take !== true) return undefined;
  const hookName = readText(event.payload, hookFieldsOf(event.flavor, event.payload).event);
  const output = messageHookOf(event.flavor, hookName);
  if (!output) return undefined;
  const taken = await deliverQueuedIn(tx, changes, actor, session, `hook:${hookName}`, at);
  return taken.length === 0 ? undefined : messageHookAnswer(output, taken.map((message) => message.text));
}
