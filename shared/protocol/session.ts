import { z } from 'zod';
import { JsonObjectSchema, JsonValueSchema } from './json.js';

/** Times on the wire are epoch milliseconds. */
export const EpochMsSchema = z.number().int().nonnegative();

/** A broadcast sequence number of a namespace (0: nothing yet). */
export const SeqSchema = z.number().int().nonnegative();

export const SidSchema = z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters');
export const WriterSchema = z.enum(['runner', 'hub', 'user']);
export type Writer = z.infer<typeof WriterSchema>;

export const LifecycleStateSchema = z.enum(['running', 'idle', 'ended', 'archived']);
export type LifecycleState = z.infer<typeof LifecycleStateSchema>;

export const RunStatusSchema = z.enum(['running', 'success', 'failure', 'cancelled', 'interrupted', 'crashed']);
export type RunStatus = z.infer<typeof RunStatusSchema>;
/** The statuses a run can end with. */
export const RunEndStatusSchema = RunStatusSchema.exclude(['running']);
export type RunEndStatus = z.infer<typeof RunEndStatusSchema>;

export const LastRunSchema = z.object({
  status: RunStatusSchema,
  endedAt: EpochMsSchema.nullable(),
  reason: z.string().nullable(),
});
export type LastRun = z.infer<typeof LastRunSchema>;

export const LifecycleSchema = z.object({
  state: LifecycleStateSchema,
  since: EpochMsSchema,
  reason: z.string().nullable(),
  by: WriterSchema.nullable(),
  lastRun: LastRunSchema.nullable(),
});
export type Lifecycle = z.infer<typeof LifecycleSchema>;

export const PresenceSchema = z.object({
  active: z.boolean(),
  activeAt: EpochMsSchema.nullable(),
  thinking: z.boolean(),
});
export type Presence = z.infer<typeof PresenceSchema>;

export const ResumeStatusSchema = z.object({
  available: z.boolean(),
  safe: z.boolean(),
  tokenKey: z.string().nullable(),
  reason: z.string().nullable(),
});
export type ResumeStatus = z.infer<typeof ResumeStatusSchema>;

export const TurnStatusSchema = z.enum(['open', 'completed', 'aborted', 'error', 'superseded', 'timeout']);
export type TurnStatus = z.infer<typeof TurnStatusSchema>;

export const TurnSummarySchema = z.object({
  turnId: z.string(),
  sid: z.string(),
  kind: z.enum(['prompt', 'recovery']),
  prompt: z.string().nullable(),
  promptTruncated: z.boolean(),
  status: TurnStatusSchema,
  openedAt: EpochMsSchema,
  closedAt: EpochMsSchema.nullable(),
  response: z.string().nullable(),
  activityCount: z.number().int().nonnegative(),
});
export type TurnSummary = z.infer<typeof TurnSummarySchema>;

/** `running`: started (a hook's PreToolUse), not finished yet; `done` / `failed`: finished. */
export const ActivityStatusSchema = z.enum(['running', 'done', 'failed']);
export type ActivityStatus = z.infer<typeof ActivityStatusSchema>;

export const ActivitySchema = z.object({
  activityId: z.string(),
  toolUseId: z.string().nullable(),
  tool: z.string(),
  input: JsonValueSchema.nullable(),
  output: JsonValueSchema.nullable(),
  /** When the tool started (or, reported only once finished, when it was reported). */
  at: EpochMsSchema,
  truncated: z.boolean(),
  status: ActivityStatusSchema,
  /** When it finished; null while running. */
  endedAt: EpochMsSchema.nullable(),
});
export type Activity = z.infer<typeof ActivitySchema>;

export const TurnWithActivitySchema = TurnSummarySchema.extend({ activities: z.array(ActivitySchema) });
export type TurnWithActivity = z.infer<typeof TurnWithActivitySchema>;

export const VersionedMetadataSchema = z.object({ version: z.number().int(), value: JsonObjectSchema });
export const VersionedAgentStateSchema = z.object({ version: z.number().int(), value: JsonObjectSchema.nullable() });
export type VersionedMetadata = z.infer<typeof VersionedMetadataSchema>;
export type VersionedAgentState = z.infer<typeof VersionedAgentStateSchema>;

export const SessionSnapshotSchema = z.object({
  sid: z.string(),
  namespace: z.string(),
  tag: z.string(),
  flavor: z.string(),
  parentSid: z.string().nullable(),
  createdAt: EpochMsSchema,
  updatedAt: EpochMsSchema,
  metadata: VersionedMetadataSchema,
  agentState: VersionedAgentStateSchema,
  lifecycle: LifecycleSchema,
  presence: PresenceSchema,
  resume: ResumeStatusSchema,
  currentTurn: TurnSummarySchema.nullable(),
});
export type SessionSnapshot = z.infer<typeof SessionSnapshotSchema>;

export const HistoryEntrySchema = z.object({
  version: z.number().int(),
  at: EpochMsSchema,
  by: WriterSchema,
  carried: z.array(z.string()),
  cleared: z.array(z.string()),
  dropped: z.array(z.string()),
  metadata: JsonObjectSchema,
});
export type HistoryEntry = z.infer<typeof HistoryEntrySchema>;
