import { z } from 'zod';
import { idSchema } from './ids.js';
import { JsonObjectSchema, JsonValueSchema } from './json.js';
import { ModelUsageSchema, UsageTotalsSchema } from './usage.js';

/** Times on the wire are epoch milliseconds. */
export const EpochMsSchema = z.number().int().nonnegative();

/** A broadcast sequence number of a namespace (0: nothing yet). */
export const SeqSchema = z.number().int().nonnegative();

export const SidSchema = idSchema(128);
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
  /** Tokens and cost per model the turn used, as reported so far; [] when nothing was reported. */
  usage: z.array(ModelUsageSchema),
});
export type TurnSummary = z.infer<typeof TurnSummarySchema>;

/**
 * `running`: started (a hook's PreToolUse), not finished yet; `done` / `failed`: finished;
 * `denied`: a person denied its approval, so it never ran (its output says who and why).
 * `abandoned`: still running when its turn closed or its session ended, and no end of its own came
 * (a tool the agent denied or killed fires none). A result that comes later still finishes it.
 */
/**
 * How a tool use went: `running`, `done`, `failed` (it ran and reported an error), `denied` (a person
 * or a rule refused it: it never ran), `abandoned` (still running when its turn closed), `cancelled`
 * (it never ran: its turn was interrupted, or its run ended, while it waited for approval).
 */
export const ActivityStatusSchema = z.enum(['running', 'done', 'failed', 'denied', 'abandoned', 'cancelled']);
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

/**
 * The agent's own words in a turn: a text block of its messages, between tool calls or at the end
 * (read by the hook bridge from its transcript: docs/hooks.md). `at` places it among the tool uses
 * (a text and a tool use at the same time: the text first, as the agent wrote it before the call).
 */
export const AgentTextSchema = z.object({
  at: EpochMsSchema,
  text: z.string(),
  /** The bridge cut it at LIMITS.maxAgentTextChars (its end says so). */
  truncated: z.boolean(),
});
export type AgentText = z.infer<typeof AgentTextSchema>;

export const TurnWithActivitySchema = TurnSummarySchema.extend({
  activities: z.array(ActivitySchema),
  /** The agent's words, in order; [] when its hooks send none. */
  texts: z.array(AgentTextSchema),
});
export type TurnWithActivity = z.infer<typeof TurnWithActivitySchema>;

/**
 * What a session has for a person (docs/attention.md): a tool call waits for approval (`permission`),
 * the agent asks something (`question`), the turn ended (`done`), the turn ended on an error
 * (`failed`), or the agent hit an error it keeps retrying (`retrying`: its model unreachable, rate
 * limited; the turn is still open).
 */
export const AttentionKindSchema = z.enum(['permission', 'question', 'done', 'failed', 'retrying']);
export type AttentionKind = z.infer<typeof AttentionKindSchema>;

/**
 * The kinds where the agent waits on a person's decision or answer: the session's activity reads
 * `waiting` ("needs you") only for these. `done` and `failed` are a turn that is over: ready for
 * the next prompt, nobody is blocking anything.
 */
export const WAITS_ON_PERSON: ReadonlySet<AttentionKind> = new Set(['permission', 'question']);

/** Attention texts longer than this are refused on the wire and cut when they come from a hook. */
export const ATTENTION_MESSAGE_MAX_CHARS = 4096;

export const AttentionSchema = z.object({
  kind: AttentionKindSchema,
  since: EpochMsSchema,
  message: z.string().nullable(),
  tool: z.string().nullable(),
});
export type Attention = z.infer<typeof AttentionSchema>;

export const VersionedMetadataSchema = z.object({ version: z.number().int(), value: JsonObjectSchema });
export const VersionedAgentStateSchema = z.object({ version: z.number().int(), value: JsonObjectSchema.nullable() });
export type VersionedMetadata = z.infer<typeof VersionedMetadataSchema>;
export type VersionedAgentState = z.infer<typeof VersionedAgentStateSchema>;

/**
 * What the session is doing, in one word a person understands (derived by the hub: hub/services/session-view.ts).
 * `waiting` is reserved for the attention view (the agent asks its user): the hub does not send it yet.
 */
export const SessionActivitySchema = z.enum(['working', 'waiting', 'idle', 'ended', 'lost']);
export type SessionActivity = z.infer<typeof SessionActivitySchema>;

export const SessionSnapshotSchema = z.object({
  sid: z.string(),
  namespace: z.string(),
  tag: z.string(),
  flavor: z.string(),
  parentSid: z.string().nullable(),
  createdAt: EpochMsSchema,
  updatedAt: EpochMsSchema,
  /** The last lifecycle event or write of the session (heartbeats do not count); the list sorts by it. */
  lastActivityAt: EpochMsSchema,
  metadata: VersionedMetadataSchema,
  agentState: VersionedAgentStateSchema,
  lifecycle: LifecycleSchema,
  presence: PresenceSchema,
  resume: ResumeStatusSchema,
  currentTurn: TurnSummarySchema.nullable(),
  /** Snapshots logged before attention existed have none: read as null. */
  attention: AttentionSchema.nullable().default(null),
  /** The session's tokens and cost over all its turns. */
  usage: UsageTotalsSchema,
  /** A display name: metadata title or summary, else the first prompt (cut), else the project folder's name. */
  title: z.string(),
  activity: SessionActivitySchema,
  /** The start of the latest prompt (the open turn's or the last closed one's), or null before any. */
  lastPrompt: z.string().nullable(),
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
