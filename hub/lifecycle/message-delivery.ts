/**
 * A person's queued messages handed to the agent by one of its hooks (docs/messages.md): taken in
 * the hook event's unit of work, and shown as what they are to the agent, its next prompt: a turn
 * opens with their text, and the session no longer waits for anyone.
 */
import type { Message } from '../../shared/protocol/messages.js';
import { applyAttention } from '../services/attention.js';
import type { ChangeSet } from '../services/changes.js';
import type { Actor } from '../services/deps.js';
import { takeQueuedIn } from '../services/messages.js';
import { getSession } from '../store/sessions.js';
import type { Tx } from '../store/sql.js';
import { submitPromptWork } from './turn-events.js';

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
