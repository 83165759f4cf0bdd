import { z } from 'zod';
import { idSchema } from './ids.js';
import { ApprovalSchema } from './attention.js';
import { JsonValueSchema } from './json.js';
import { UsageTotalsSchema } from './usage.js';
import {
  EpochMsSchema,
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

/**
 * `q`: text in the tag, title, working directory or any prompt (case-insensitive for ASCII);
 * `project`: the git repository root the runner reported as metadata `projectRoot`, else its `path`;
 * `sort`: `updated` (newest update first: the spec's order, the default) or `activity` (newest last activity first).
 */
export const ListSessionsQuerySchema = z.object({
  state: LifecycleStateSchema.optional(),
  flavor: idSchema(64).optional(),
  project: z.string().min(1, 'must not be empty').max(4096, 'must be at most 4096 characters').optional(),
  q: z.string().min(1, 'must not be empty').max(256, 'must be at most 256 characters').optional(),
  sort: z.enum(['updated', 'activity']).default('updated'),
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

const EpochMsOrDate = z.union([
  z.string().regex(/^\d{1,15}$/).transform(Number),
  z.iso.date().transform((day) => Date.parse(`${day}T00:00:00Z`)),
  z.iso.datetime({ offset: true }).transform((time) => Date.parse(time)),
], { error: 'must be epoch milliseconds, a date (2026-11-25) or an ISO date-time' });

/** `from` (inclusive) and `to` (exclusive): epoch ms, a UTC date or an ISO date-time; by default the last 30 days. */
export const UsageQuerySchema = z
  .object({
    from: EpochMsOrDate.optional(),
    to: EpochMsOrDate.optional(),
    groupBy: z.enum(['day', 'flavor', 'project', 'model']).default('day'),
  })
  .refine((query) => query.from === undefined || query.to === undefined || query.from < query.to, { path: ['from'], message: 'must be before to' });
export type UsageQuery = z.infer<typeof UsageQuerySchema>;
export const UsageResponseSchema = z.object({
  from: EpochMsSchema,
  to: EpochMsSchema,
  groupBy: z.enum(['day', 'flavor', 'project', 'model']),
  /** One entry per group with usage in the range; `key` null: sessions without a project. */
  groups: z.array(UsageTotalsSchema.extend({ key: z.string().nullable() })),
  totals: UsageTotalsSchema,
});
export type UsageResponse = z.infer<typeof UsageResponseSchema>;

export const HealthResponseSchema = z.object({ ok: z.literal(true) });
/** `GET /readyz` while the store cannot take a write: 503 with why (docs/reliability.md). */
export const NotReadyResponseSchema = z.object({ ok: z.literal(false), error: z.literal('unavailable'), message: z.string(), reason: z.string() });
