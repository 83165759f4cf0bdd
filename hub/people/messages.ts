/**
 * Messages from people to an agent (docs/messages.md). A person with an operator or admin token
 * queues one over HTTP; whoever reaches the agent first takes it: a runner socket that acks the
 * `message` event, the agent's stop hook (printed as its next instruction), or a background hook
 * waiting to wake the idle agent. Taking is compare-and-set, so a message is delivered once. Every
 * change is one unit of work with its `message` event; the sweep expires what waited too long.
 */
import { randomUUID } from 'node:crypto';
import { HubError } from '../../shared/errors.js';
import { MESSAGE_ANSWER_MAX_BYTES, type Message, type MessageSender } from '../../shared/protocol/messages.js';
import { ENV_VARS } from '../config.js';
import { endMessage, getMessage, insertMessage, listQueuedMessages, listStaleMessages, markMessageDelivered, queuedSize } from '../store/messages.js';
import type { Tx } from '../store/sql.js';
import { runWrite, type ChangeSet } from '../services/changes.js';
import type { Actor, HubDeps } from '../services/deps.js';
import { wakeMessageWaiters } from './message-waiters.js';
import { requireSession } from '../services/require-session.js';
import { runnerTakerOf } from './message-takers.js';

/** No such message on this session (or it is another tenant's): 404 `message_not_found`. */
export class MessageNotFound extends HubError {
  constructor(messageId: string) {
    super('not_found', `message ${messageId} not found on this session`);
    this.name = 'MessageNotFound';
  }
}

/** The message is no longer queued: 409 with the message as it stands. */
export class MessageConflict extends HubError {
  constructor(readonly current: Message) {
    super('conflict', `message ${current.id} is ${current.state}${current.via ? ` (${current.via})` : ''}: only a queued message can be cancelled`);
    this.name = 'MessageConflict';
  }
}

/** The session's queue is at one of its limits (count or bytes): 429 `queue_full`, naming the limit. */
export class QueueFull extends HubError {
  constructor(message: string) {
    super('queue_full', message);
    this.name = 'QueueFull';
  }
}

/**
 * A session's queue is bounded (SESSION_HUB_MESSAGE_QUEUE_MAX messages, _MAX_BYTES of text): an agent
 * that never stops must not let people pile up what no answer could carry and every read would hold.
 */
async function refuseOverLimit(tx: Tx, deps: HubDeps, sid: string, text: string): Promise<void> {
  const { count, bytes } = await queuedSize(tx, sid);
  const { messageQueueMax, messageQueueMaxBytes } = deps.config;
  if (count + 1 > messageQueueMax) {
    throw new QueueFull(`session ${sid} already holds ${count} queued messages, its limit (${ENV_VARS.messageQueueMax}=${messageQueueMax}): wait until its agent takes some, or cancel some`);
  }
  const adding = Buffer.byteLength(text);
  if (bytes + adding > messageQueueMaxBytes) {
    throw new QueueFull(
      `session ${sid}'s queued messages hold ${bytes} bytes; ${adding} more would pass its limit of ${messageQueueMaxBytes} bytes (${ENV_VARS.messageQueueMaxBytes}): wait until its agent takes some, or cancel some`,
    );
  }
}

/** `queue`: a person's message for the session, `queued` until an agent takes it. */
export async function queueMessage(deps: HubDeps, actor: Actor, input: { sid: string; text: string; by: MessageSender }): Promise<Message> {
  const { message, namespace } = await runWrite(deps, async (tx, changes, now) => {
    const session = await requireSession(tx, actor, input.sid);
    await refuseOverLimit(tx, deps, session.sid, input.text);
    const queued: Message = {
      id: randomUUID(),
      sid: session.sid,
      text: input.text,
      state: 'queued',
      createdAt: now,
      deliveredAt: null,
      endedAt: null,
      by: input.by,
      via: null,
      takenBy: null,
    };
    await insertMessage(tx, { id: queued.id, sid: queued.sid, namespace: session.namespace, text: queued.text, createdAt: now, byToken: input.by.tokenId, byLabel: input.by.label });
    changes.message(session.namespace, queued);
    return { message: queued, namespace: session.namespace };
  }, { namespace: actor.namespace, reads: { namespace: actor.namespace, sid: input.sid, messages: true } });
  wakeMessageWaiters(deps, namespace, message.sid);
  void offerToRunners(deps, namespace, message);
  return message;
}

/** `cancel`: a queued message ends `cancelled`; one no longer queued is a MessageConflict, nothing changes. */
export function cancelMessage(deps: HubDeps, actor: Actor, input: { sid: string; messageId: string }): Promise<Message> {
  return runWrite(deps, async (tx, changes, now) => {
    const session = await requireSession(tx, actor, input.sid);
    const message = await getMessage(tx, { id: input.messageId, sid: session.sid, namespace: session.namespace });
    if (!message) throw new MessageNotFound(input.messageId);
    if (message.state !== 'queued' || !(await endMessage(tx, { id: message.id, state: 'cancelled', at: now }))) {
      throw new MessageConflict((await getMessage(tx, { id: message.id, sid: session.sid, namespace: session.namespace }))!);
    }
    const cancelled: Message = { ...message, state: 'cancelled', endedAt: now };
    changes.message(session.namespace, cancelled);
    return cancelled;
  }, { namespace: actor.namespace, reads: { namespace: actor.namespace, sid: input.sid, messages: true } });
}

/**
 * Inside a unit of work: the session's queued messages, oldest first, as many as fit in one answer
 * (MESSAGE_ANSWER_MAX_BYTES of text, at least one), become `delivered` by `via` (a hook printing
 * them), taken by `takenBy`; the rest stay queued for the next take. Returns those this call took
 * (another taker may have won some).
 */
export async function takeQueuedIn(tx: Tx, changes: ChangeSet, session: { namespace: string; sid: string }, taker: { via: string; takenBy: string }, now: number): Promise<Message[]> {
  const taken: Message[] = [];
  let bytes = 0;
  for (const message of await listQueuedMessages(tx, session.sid)) {
    // the blank line that joins two texts counts too: the answer is what the agent reads
    const size = Buffer.byteLength(message.text) + (taken.length > 0 ? 2 : 0);
    if (taken.length > 0 && bytes + size > MESSAGE_ANSWER_MAX_BYTES) break;
    if (!(await markMessageDelivered(tx, { id: message.id, at: now, ...taker }))) continue;
    const delivered: Message = { ...message, state: 'delivered', deliveredAt: now, ...taker };
    changes.message(session.namespace, delivered);
    taken.push(delivered);
    bytes += size;
  }
  return taken;
}

/** A runner acked the message: delivered by `runner`, unless another taker was first (false). */
async function markDeliveredByRunner(deps: HubDeps, namespace: string, message: Message): Promise<boolean> {
  return runWrite(deps, async (tx, changes, now) => {
    const takenBy = await runnerTakerOf(tx, { namespace, sid: message.sid });
    if (!(await markMessageDelivered(tx, { id: message.id, at: now, via: 'runner', takenBy }))) return false;
    changes.message(namespace, { ...message, state: 'delivered', deliveredAt: now, via: 'runner', takenBy });
    return true;
  });
}

/**
 * Offers a queued message to the runner sockets of its session (every hub process); the first
 * `{ ok: true }` marks it delivered. Runs after the commit, in the background: the person already
 * has their 201; a failure leaves the message queued for the next taker.
 */
export function offerToRunners(deps: HubDeps, namespace: string, message: Message, options: { socketId?: string } = {}): Promise<boolean> {
  const courier = deps.courier;
  if (!courier) return Promise.resolve(false);
  return courier
    .offer(message, options.socketId)
    .then(async (acked) => acked && (await markDeliveredByRunner(deps, namespace, message)))
    .catch((error: unknown) => {
      deps.log.warn({ err: error, sid: message.sid, messageId: message.id }, 'offering a message to runners failed; it stays queued');
      return false;
    });
}

/** A runner socket started or joined the session: its queued messages are offered to it, in order, until one is not taken. */
export async function offerQueuedTo(deps: HubDeps, session: { namespace: string; sid: string }, socketId: string): Promise<void> {
  for (const message of await listQueuedMessages(deps.store, session.sid)) {
    if (!(await offerToRunners(deps, session.namespace, message, { socketId }))) return;
  }
}

/** The sweep: queued messages older than the TTL end `expired`, visibly (their event); returns how many. */
export async function expireStaleIn(tx: Tx, changes: ChangeSet, input: { before: number; limit: number; now: number }): Promise<number> {
  const stale = await listStaleMessages(tx, input.before, input.limit);
  for (const { message, namespace } of stale) {
    if (await endMessage(tx, { id: message.id, state: 'expired', at: input.now }, true)) changes.message(namespace, { ...message, state: 'expired', endedAt: input.now });
  }
  return stale.length;
}
