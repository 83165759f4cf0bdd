import { z } from 'zod';
import { okAck } from './acks.js';
import { idSchema } from './ids.js';
import { JsonObjectSchema, JsonValueSchema } from './json.js';
import { TakerSchema } from './messages.js';
import { UsageReportsSchema } from './usage.js';
import { EpochMsSchema, RunEndStatusSchema, SeqSchema, SessionSnapshotSchema, SidSchema, TurnSummarySchema } from './session.js';

const ShortText = z.string().max(1024, 'must be at most 1024 characters');

export const SessionSourceSchema = z.enum(['startup', 'resume', 'clear', 'compact']);
export type SessionSource = z.infer<typeof SessionSourceSchema>;

export const SessionStartPayloadSchema = z.object({
  tag: idSchema(256),
  flavor: idSchema(64),
  source: SessionSourceSchema,
  sid: SidSchema.optional(),
  metadata: JsonObjectSchema.optional(),
  parentSid: SidSchema.optional(),
  pid: z.number().int().nonnegative().optional(),
  /** The runner holds no socket for the run's life (the hook bridge): no run grace; ended when silent (docs/lifecycle.md). */
  detached: z.boolean().optional(),
  /** This runner's taker proof for the session's messages (docs/messages.md, "Who takes a message"); the first one a session sees is registered. */
  taker: TakerSchema.optional(),
});
export type SessionStartPayload = z.infer<typeof SessionStartPayloadSchema>;
/** `takerRefused`: why this socket gets none of the session's messages (no or another taker key); absent when it does. */
export const SessionStartAckSchema = okAck({ session: SessionSnapshotSchema, created: z.boolean(), takerRefused: z.string().optional() });
export type SessionStartAck = z.infer<typeof SessionStartAckSchema>;

export const SessionJoinPayloadSchema = z.object({ sid: SidSchema, sinceSeq: SeqSchema.optional(), taker: TakerSchema.optional() });
export type SessionJoinPayload = z.infer<typeof SessionJoinPayloadSchema>;
export const SessionJoinAckSchema = okAck({ session: SessionSnapshotSchema, takerRefused: z.string().optional() });
export type SessionJoinAck = z.infer<typeof SessionJoinAckSchema>;
export const SessionAckSchema = okAck({ session: SessionSnapshotSchema });
export type SessionAck = z.infer<typeof SessionAckSchema>;

export const PromptSubmitPayloadSchema = z.object({
  sid: SidSchema,
  prompt: z.string(),
  promptId: idSchema(1024).optional(),
});
export type PromptSubmitPayload = z.infer<typeof PromptSubmitPayloadSchema>;
export const PromptSubmitAckSchema = okAck({ turnId: z.string() });
export type PromptSubmitAck = z.infer<typeof PromptSubmitAckSchema>;

export const ToolUsePayloadSchema = z.object({
  sid: SidSchema,
  tool: idSchema(256),
  toolUseId: idSchema(1024).optional(),
  input: JsonValueSchema.optional(),
  output: JsonValueSchema.optional(),
  at: EpochMsSchema.optional(),
  /** How the tool ended, where the reporter knows (a runner knows a denial it carried): `done` when absent. */
  status: z.enum(['done', 'failed', 'denied', 'cancelled']).optional(),
});
export type ToolUsePayload = z.infer<typeof ToolUsePayloadSchema>;
export const ToolUseAckSchema = okAck({ turnId: z.string(), activityId: z.string() });
export type ToolUseAck = z.infer<typeof ToolUseAckSchema>;

export const TurnStopPayloadSchema = z.object({
  sid: SidSchema,
  response: z.string().optional(),
  status: z.enum(['completed', 'aborted', 'error']).optional(),
  /** The closing turn's totals per model (docs/usage.md); ignored when no turn is open. */
  usage: UsageReportsSchema.optional(),
});
export type TurnStopPayload = z.infer<typeof TurnStopPayloadSchema>;
/** `turn` is the turn that was closed, or null when none was open. */
export const TurnStopAckSchema = okAck({ turn: TurnSummarySchema.nullable() });
export type TurnStopAck = z.infer<typeof TurnStopAckSchema>;

/**
 * `usage`: a runner's usage report in the middle of a turn (or after it): the turn's totals so far
 * per model. A count below the stored one is ignored, so a repeated or late report never lowers or
 * doubles a total. `turnId`: the turn it belongs to; without it, the open turn (else as tool-use).
 */
export const UsagePayloadSchema = z.object({
  sid: SidSchema,
  turnId: ShortText.optional(),
  usage: UsageReportsSchema.min(1, 'must name at least one model'),
});
export type UsagePayload = z.infer<typeof UsagePayloadSchema>;
export const UsageAckSchema = okAck({ turn: TurnSummarySchema });
export type UsageAck = z.infer<typeof UsageAckSchema>;

/** `session-end` and `session-finalize` share one payload. */
export const SessionEndPayloadSchema = z.object({
  sid: SidSchema,
  reason: ShortText.optional(),
  status: RunEndStatusSchema.optional(),
});
export type SessionEndPayload = z.infer<typeof SessionEndPayloadSchema>;

/** As `session-end`, but the reason is required. */
export const SessionArchivePayloadSchema = SessionEndPayloadSchema.extend({ reason: ShortText });
export type SessionArchivePayload = z.infer<typeof SessionArchivePayloadSchema>;

export const SessionAlivePayloadSchema = z.object({
  sid: SidSchema,
  time: z.number().finite(),
  thinking: z.boolean().optional(),
});
export type SessionAlivePayload = z.infer<typeof SessionAlivePayloadSchema>;
export const OkAckSchema = okAck({});
export type OkAck = z.infer<typeof OkAckSchema>;

export const ResumeFailedPayloadSchema = z.object({
  sid: SidSchema,
  tokenKey: idSchema(128),
  token: z.string().max(1024),
  stage: z.enum(['resume', 'first-send']),
  emitted: z.boolean(),
  aborted: z.boolean(),
  error: z.string().max(4096).optional(),
});
export type ResumeFailedPayload = z.infer<typeof ResumeFailedPayloadSchema>;
export const ResumeFailedAckSchema = okAck({
  action: z.enum(['fresh-start', 'fail']),
  replay: z.array(TurnSummarySchema).optional(),
});
export type ResumeFailedAck = z.infer<typeof ResumeFailedAckSchema>;
