/**
 * Messages from people to an agent (docs/messages.md): a session's durable queue, its HTTP routes,
 * its broadcast body, and the `/runner` event `message` a runner acks once its agent has the text.
 */
import { z } from 'zod';
import { ErrorBodySchema } from './acks.js';
import { idSchema } from './ids.js';
import { LIMITS } from './limits.js';
import { personText } from './person-text.js';
import { EpochMsSchema, SidSchema } from './session.js';

/**
 * `queued` until an agent takes it (`delivered`), a person cancels it (`cancelled`), or it waited
 * longer than the hub's message TTL (`expired`, default a day).
 */
export const MessageStateSchema = z.enum(['queued', 'delivered', 'cancelled', 'expired']);
export type MessageState = z.infer<typeof MessageStateSchema>;

/** The sending token: its public id and, where the token has one, its label. Never its secret. */
export const MessageSenderSchema = z.object({ tokenId: z.string(), label: z.string().nullable() });
export type MessageSender = z.infer<typeof MessageSenderSchema>;

/**
 * How a delivered message reached the agent: `runner` (a runner acked the `message` event),
 * `hook:<event>` (printed by the agent's hook of that name at its stop, e.g. `hook:Stop`), or
 * `wake:<event>` (a background hook woke the idle agent with it: Claude Code's asyncRewake).
 */
export const MessageViaSchema = z.string().max(128);

export const MessageSchema = z.object({
  id: z.string(),
  sid: z.string(),
  text: z.string(),
  state: MessageStateSchema,
  createdAt: EpochMsSchema,
  deliveredAt: EpochMsSchema.nullable(),
  /** When it left `queued` otherwise (cancelled or expired); null while queued or once delivered. */
  endedAt: EpochMsSchema.nullable(),
  by: MessageSenderSchema,
  via: MessageViaSchema.nullable(),
  /**
   * The process that took it, as it named itself when it proved it is the session's own taker
   * (`hook pid 4242 on laptop`, `runner pid 77 on build-3`): null while not delivered, or taken
   * before the hub recorded takers.
   */
  takenBy: z.string().nullable(),
});
export type Message = z.infer<typeof MessageSchema>;

/**
 * Proof that a process is the agent session's own (docs/messages.md, "Who takes a message"): a
 * secret the session's first hook process or runner chose (`key`; the hub keeps its sha256, the
 * first one presented for the session wins), and how the process names itself for the page.
 */
export const TakerSchema = z.object({
  key: z.string().min(32, 'must be at least 32 characters (a random secret)').max(128, 'must be at most 128 characters'),
  process: z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters'),
});
export type Taker = z.infer<typeof TakerSchema>;

/**
 * What one take hands an agent at most: the texts of as many queued messages, oldest first, as fit
 * in this many bytes of UTF-8 (always at least one; a message is at most MESSAGE_MAX_BYTES). The
 * rest stay queued for the next take, so an answer crosses the wire within the bridge's budget.
 */
export const MESSAGE_ANSWER_MAX_BYTES = LIMITS.maxPromptBytes;

export const MESSAGE_MAX_BYTES = LIMITS.maxPromptBytes;

/** A person's words to the agent: not empty, within the prompt limit, read the same on the page and by the agent (person-text.ts). */
export const MessageTextSchema = personText(
  z
    .string()
    .refine((text) => text.trim().length > 0, 'must not be empty')
    .refine((text) => Buffer.byteLength(text) <= MESSAGE_MAX_BYTES, `must be at most ${MESSAGE_MAX_BYTES} bytes (the prompt limit)`),
);

/** POST /api/sessions/:sid/messages */
export const PostMessageRequestSchema = z.object({ text: MessageTextSchema }).strict();
export type PostMessageRequest = z.infer<typeof PostMessageRequestSchema>;
export const MessageResponseSchema = z.object({ message: MessageSchema });
export type MessageResponse = z.infer<typeof MessageResponseSchema>;
/**
 * How a message reaches the agent while it waits: `runner` (an SDK runner's socket: at once),
 * `wake` (its hook wakes the idle agent: at once), `stop` (at the agent's next stop only).
 */
export const MessageReachSchema = z.enum(['runner', 'wake', 'stop']);
export type MessageReach = z.infer<typeof MessageReachSchema>;
/**
 * GET …/messages: oldest first, and how a message reaches this session's agent. Between turns,
 * `reach` is `wake` only while a waiter of the session waits on the hub now, and `wakeUntil` is
 * when it gives up; no waiter now: `stop` (a message goes at its next stop), no `wakeUntil`.
 * While a turn runs: `wake` without `wakeUntil` (its stop starts a waiter).
 */
export const MessagesResponseSchema = z.object({
  sid: z.string(),
  messages: z.array(MessageSchema),
  reach: MessageReachSchema,
  wakeUntil: EpochMsSchema.optional(),
  /** Older messages remain: pass it as `cursor` for the page before this one. */
  nextCursor: z.string().optional(),
});
export type MessagesResponse = z.infer<typeof MessagesResponseSchema>;
/** GET …/messages: the latest `limit` messages (default 100), or those before `cursor` (a `nextCursor`). */
export const MESSAGE_PAGE_DEFAULT = 100;
export const MESSAGE_PAGE_MAX = 500;
export const MessagesQuerySchema = z
  .object({
    limit: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(MESSAGE_PAGE_MAX, `must be at most ${MESSAGE_PAGE_MAX}`).default(MESSAGE_PAGE_DEFAULT),
    cursor: z.string().max(512).optional(),
  })
  .strict();
export const MessageParamsSchema = z.object({ sid: SidSchema, messageId: idSchema(128) });
/** 409 when cancelling a message no longer queued: the message as it stands. */
export const MessageConflictSchema = z.object({ error: z.literal('conflict'), message: z.string(), current: MessageSchema });

/** Broadcast body: a message was queued or changed state. */
export const MessageBodySchema = z.object({ t: z.literal('message'), sid: z.string(), message: MessageSchema });
export type MessageBody = z.infer<typeof MessageBodySchema>;

/** `/runner` event from the hub: a person's message for the session; ack `{ ok: true }` once the agent has it. */
export const RunnerMessagePayloadSchema = z.object({ sid: z.string(), message: MessageSchema });
export type RunnerMessagePayload = z.infer<typeof RunnerMessagePayloadSchema>;
export const RunnerMessageAckSchema = z.union([z.object({ ok: z.literal(true) }), z.object({ ok: z.literal(false), error: ErrorBodySchema.optional() })]);
export type RunnerMessageAck = z.infer<typeof RunnerMessageAckSchema>;

/**
 * POST /api/hooks/wait (runner token): a background hook (Claude Code's asyncRewake Stop) waits up
 * to `waitMs` for messages of the agent session `tag`, proving with `taker` that it is that session's.
 */
export const HookWaitRequestSchema = z.object({
  flavor: idSchema(64),
  tag: idSchema(256),
  /** The hook event that waits (e.g. `Stop`): recorded in `via` as `wake:<event>`. */
  event: idSchema(128),
  waitMs: z.number().int().positive('must be positive').max(3_600_000, 'must be at most 3600000 (an hour)'),
  /** The session's taker proof: without the key the session's first process registered, 403 and nothing waits. */
  taker: TakerSchema.optional(),
});
export type HookWaitRequest = z.infer<typeof HookWaitRequestSchema>;
/** `messages` delivered to this waiter (empty: none in time, or the hub closing); `replaced` is always false (waiters are never replaced). */
export const HookWaitResponseSchema = z.object({ messages: z.array(MessageSchema), replaced: z.boolean() });
export type HookWaitResponse = z.infer<typeof HookWaitResponseSchema>;
