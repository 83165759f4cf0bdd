import { z } from 'zod';
import { idSchema } from './ids.js';
import { ApprovalSchema } from './attention.js';
import { JsonValueSchema } from './json.js';
import {
  HistoryEntrySchema,
  LastRunSchema,
  LifecycleStateSchema,
  SessionSnapshotSchema,
  SidSchema,
  TurnWithActivitySchema,
} from './session.js';

/** HTTP error body (spec section 11): `{ error: <code>, message }`, plus `reason` on 409s of section 7. */
export const HttpErrorSchema = z.object({ error: z.string(), message: z.string(), reason: z.string().optional() });
export type HttpError = z.infer<typeof HttpErrorSchema>;

export const SidParamsSchema = z.object({ sid: SidSchema });

export const ListSessionsQuerySchema = z.object({
  state: LifecycleStateSchema.optional(),
  flavor: idSchema(64).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(512).optional(),
});
export type ListSessionsQuery = z.infer<typeof ListSessionsQuerySchema>;
export const ListSessionsResponseSchema = z.object({
  sessions: z.array(SessionSnapshotSchema),
  nextCursor: z.string().nullable(),
});
export type ListSessionsResponse = z.infer<typeof ListSessionsResponseSchema>;

/** The metadata versions, and the audit of tool-approval decisions (decided approvals, newest first). */
export const HistoryResponseSchema = z.object({ sid: z.string(), history: z.array(HistoryEntrySchema), decisions: z.array(ApprovalSchema) });
export type HistoryResponse = z.infer<typeof HistoryResponseSchema>;

export const TurnsResponseSchema = z.array(TurnWithActivitySchema);

export const ResumePolicySchema = z.enum(['safe', 'force']);
export type ResumePolicy = z.infer<typeof ResumePolicySchema>;
/** A POST without a body (Fastify hands the schema `null`) is the default policy, as `{}` is. */
export const ResumeRequestSchema = z
  .object({ policy: ResumePolicySchema.default('safe') })
  .nullish()
  .transform((body) => body ?? { policy: 'safe' as const });
export const ResumeResponseSchema = z.object({
  sid: z.string(),
  flavor: z.string(),
  tokenKey: z.string(),
  token: JsonValueSchema,
  path: z.string().nullable(),
  policy: ResumePolicySchema,
  lastRun: LastRunSchema.nullable(),
});
export type ResumeResponse = z.infer<typeof ResumeResponseSchema>;
export const ResumeUnavailableReasonSchema = z.enum(['no_token', 'token_rejected', 'token_expired']);
export type ResumeUnavailableReason = z.infer<typeof ResumeUnavailableReasonSchema>;

export const ArchiveRequestSchema = z.object({ reason: z.string().min(1).max(1024) });
export const ArchiveResponseSchema = SessionSnapshotSchema;

export const RepairRequestSchema = z
  .object({ keys: z.array(z.string().min(1).max(128)).max(100).optional() })
  .nullish()
  .transform((body) => body ?? {});
export const RepairResponseSchema = z.object({ restored: z.record(z.string(), JsonValueSchema), version: z.number().int() });
export type RepairResponse = z.infer<typeof RepairResponseSchema>;

export const HealthResponseSchema = z.object({ ok: z.literal(true) });
