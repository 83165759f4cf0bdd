/**
 * Every session on the machine (spec section 16, docs/agent-sessions.md): the sessions the agents
 * keep in their own stores, as the machine runner lists them, and one of them read whole for an
 * import. Transcripts are untrusted: what the runner sends is already bounded (AGENT_SESSION_LIMITS)
 * and the hub validates it again with these schemas.
 */
import { z } from 'zod';
import { idSchema } from './ids.js';
import { JsonValueSchema } from './json.js';
import { MachineFailedAckSchema, MachinePathSchema, RequestedBySchema } from './machines.js';
import { EpochMsSchema, SidSchema } from './session.js';
import { UsageReportsSchema } from './usage.js';

export const AGENT_SESSION_LIMITS = {
  /** A transcript past this size is not read (listed with why; its import refused). */
  maxTranscriptBytes: 64 * 1024 * 1024,
  /** Listed at most, newest first. */
  maxListed: 200,
  /** Turns an import carries at most: the latest ones. */
  maxTurns: 500,
  /** A prompt or a closing message, cut past this many characters. */
  maxTextChars: 8_000,
  /** A tool's input or output, as JSON text, cut past this many characters. */
  maxToolChars: 2_000,
  /** Tools per turn at most. */
  maxToolsPerTurn: 100,
} as const;

/** A session found on the machine. `problem`: why it cannot be imported (too large, not the agent's own id, a directory outside the roots). */
export const AgentSessionSchema = z.object({
  flavor: idSchema(64),
  agentSessionId: z.string().max(256),
  path: z.string().nullable(),
  title: z.string().nullable(),
  startedAt: EpochMsSchema.nullable(),
  updatedAt: EpochMsSchema,
  turns: z.number().int().nonnegative(),
  sid: SidSchema.nullable(),
  problem: z.string().optional(),
});
export type AgentSession = z.infer<typeof AgentSessionSchema>;

export const ImportedToolSchema = z.object({
  tool: idSchema(256),
  toolUseId: idSchema(1024).optional(),
  input: JsonValueSchema,
  output: JsonValueSchema.optional(),
  at: EpochMsSchema,
  status: z.enum(['done', 'failed']),
});
export const ImportedTurnSchema = z.object({
  prompt: z.string(),
  at: EpochMsSchema,
  endedAt: EpochMsSchema,
  response: z.string().nullable(),
  tools: z.array(ImportedToolSchema).max(AGENT_SESSION_LIMITS.maxToolsPerTurn),
  usage: UsageReportsSchema.optional(),
});
export type ImportedTurn = z.infer<typeof ImportedTurnSchema>;

/** One session read whole: what an import makes of it. `cut` says what was left out, and why. */
export const AgentSessionHistorySchema = z.object({
  flavor: idSchema(64),
  agentSessionId: idSchema(256),
  path: MachinePathSchema,
  startedAt: EpochMsSchema,
  updatedAt: EpochMsSchema,
  turns: z.array(ImportedTurnSchema).max(AGENT_SESSION_LIMITS.maxTurns),
  cut: z.string().nullable(),
});
export type AgentSessionHistory = z.infer<typeof AgentSessionHistorySchema>;

// hub → runner

export const MachineAgentSessionsPayloadSchema = z.object({ path: MachinePathSchema.optional(), requestedBy: RequestedBySchema });
export type MachineAgentSessionsPayload = z.infer<typeof MachineAgentSessionsPayloadSchema>;
/** The runner does not know the hub's sids: `sid` is null here, set by the hub. */
export const MachineAgentSessionsAckSchema = z.discriminatedUnion('ok', [z.object({ ok: z.literal(true), sessions: z.array(AgentSessionSchema).max(AGENT_SESSION_LIMITS.maxListed) }), MachineFailedAckSchema]);
export type MachineAgentSessionsAck = z.infer<typeof MachineAgentSessionsAckSchema>;

export const MachineAgentSessionReadPayloadSchema = z.object({ flavor: idSchema(64), agentSessionId: idSchema(256), requestedBy: RequestedBySchema });
export type MachineAgentSessionReadPayload = z.infer<typeof MachineAgentSessionReadPayloadSchema>;
export const MachineAgentSessionReadAckSchema = z.discriminatedUnion('ok', [z.object({ ok: z.literal(true), history: AgentSessionHistorySchema }), MachineFailedAckSchema]);
export type MachineAgentSessionReadAck = z.infer<typeof MachineAgentSessionReadAckSchema>;

// HTTP

export const AgentSessionsQuerySchema = z.object({ path: MachinePathSchema.optional() });
export const AgentSessionsResponseSchema = z.object({ sessions: z.array(AgentSessionSchema) });
export const ImportAgentSessionRequestSchema = z.object({ flavor: idSchema(64), agentSessionId: idSchema(256) });
export const ImportAgentSessionResponseSchema = z.object({ sid: SidSchema, created: z.boolean(), cut: z.string().nullable().optional() });
