import { z } from 'zod';
import { ErrorCodeSchema } from './acks.js';
import { ApprovalBodySchema } from './attention.js';
import { MessageBodySchema } from './messages.js';
import {
  AttentionSchema,
  EpochMsSchema,
  LifecycleSchema,
  PresenceSchema,
  SessionActivitySchema,
  SessionSnapshotSchema,
  TurnSummarySchema,
  VersionedAgentStateSchema,
  VersionedMetadataSchema,
} from './session.js';
import { UsageTotalsSchema } from './usage.js';

/**
 * The fields of a session that changed, with their stored values; null where unchanged. The derived
 * `title`, `activity` and `lastPrompt` are present, current, whenever they may have moved (absent:
 * unchanged): `title` with every metadata change, all three with a lifecycle, presence or attention
 * change and when the current turn opens or closes (lastPrompt null = no prompt yet). A client never
 * derives them itself. They are left out of a plain metadata or state write on purpose: deriving
 * them costs reads in the writer's transaction (issue 15's write path).
 */
export const UpdateSessionBodySchema = z.object({
  t: z.literal('update-session'),
  sid: z.string(),
  metadata: VersionedMetadataSchema.nullable(),
  agentState: VersionedAgentStateSchema.nullable(),
  lifecycle: LifecycleSchema.nullable(),
  presence: PresenceSchema.nullable(),
  /**
   * `{ value }` when attention changed (`value: null`: cleared), null when unchanged. Wrapped, as a
   * bare null could not tell "cleared" from "unchanged"; events logged before attention existed
   * have none: read as unchanged.
   */
  attention: z.object({ value: AttentionSchema.nullable() }).nullable().default(null),
  /** Derived from the fields above and the current turn; present when they may have moved. */
  title: z.string().optional(),
  activity: SessionActivitySchema.optional(),
  lastPrompt: z.string().nullable().optional(),
});
export type UpdateSessionBody = z.infer<typeof UpdateSessionBodySchema>;

export const SessionCreatedBodySchema = z.object({ t: z.literal('session-created'), sid: z.string(), session: SessionSnapshotSchema });
export type SessionCreatedBody = z.infer<typeof SessionCreatedBodySchema>;

/** `sessionUsage`: the session's new usage totals, when this turn's usage changed them. */
export const TurnBodySchema = z.object({ t: z.literal('turn'), sid: z.string(), turn: TurnSummarySchema, sessionUsage: UsageTotalsSchema.optional() });
export type TurnBody = z.infer<typeof TurnBodySchema>;

export const UpdateBodySchema = z.discriminatedUnion('t', [UpdateSessionBodySchema, SessionCreatedBodySchema, TurnBodySchema, ApprovalBodySchema, MessageBodySchema]);
export type UpdateBody = z.infer<typeof UpdateBodySchema>;

export const UpdateEventSchema = z.object({
  id: z.string(),
  seq: z.number().int().positive(),
  createdAt: EpochMsSchema,
  body: UpdateBodySchema,
});
export type UpdateEvent = z.infer<typeof UpdateEventSchema>;

export const ResyncEventSchema = z.object({ reason: z.literal('gap') });
export type ResyncEvent = z.infer<typeof ResyncEventSchema>;

/** Sent for a failed event that came without an ack callback. */
export const ServerErrorEventSchema = z.object({ code: ErrorCodeSchema, message: z.string(), event: z.string() });
export type ServerErrorEvent = z.infer<typeof ServerErrorEventSchema>;
