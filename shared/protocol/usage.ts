import { z } from 'zod';

/**
 * Token usage and cost (docs/usage.md). Runners report tokens per model; the hub prices them from
 * its price table and stores both. A model the table does not know keeps its tokens and gets no
 * cost (`costUsd: null`), never a guessed one.
 */

/** More tokens than any turn can use (a 1M-token context read 10,000 times): a larger count is a bug, refused. */
export const MAX_REPORTED_TOKENS = 10_000_000_000;

const TokenCount = z
  .number({ error: 'must be a number of tokens' })
  .int('must be a whole number of tokens')
  .nonnegative('must not be negative')
  .max(MAX_REPORTED_TOKENS, `must be at most ${MAX_REPORTED_TOKENS} tokens`);

/** What a runner reports for one model: the turn's totals so far (not an increment). */
export const UsageReportSchema = z.object({
  model: z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters'),
  inputTokens: TokenCount,
  outputTokens: TokenCount,
  cacheReadTokens: TokenCount.optional(),
  cacheWriteTokens: TokenCount.optional(),
});
export type UsageReport = z.infer<typeof UsageReportSchema>;

/** One report per model; a model named twice is refused (which of the two would be meant?). */
export const UsageReportsSchema = z
  .array(UsageReportSchema)
  .max(32, 'must name at most 32 models')
  .superRefine((reports, ctx) => {
    const seen = new Set<string>();
    reports.forEach((report, index) => {
      if (seen.has(report.model)) ctx.addIssue({ code: 'custom', path: [index, 'model'], message: `model ${JSON.stringify(report.model)} is named twice` });
      seen.add(report.model);
    });
  });

const StoredTokenCount = z.number().int().nonnegative();

/** A turn's usage of one model, as stored: tokens and their cost in USD (null: the model has no price). */
export const ModelUsageSchema = z.object({
  model: z.string(),
  inputTokens: StoredTokenCount,
  outputTokens: StoredTokenCount,
  cacheReadTokens: StoredTokenCount,
  cacheWriteTokens: StoredTokenCount,
  costUsd: z.number().nonnegative().nullable(),
});
export type ModelUsage = z.infer<typeof ModelUsageSchema>;

/**
 * Totals over many turns (a session, a day, a project…). `costUsd` sums the priced tokens only
 * (null when none is priced); `unpricedTokens` counts the tokens of models without a price, so a
 * reader knows whether the cost is the whole cost.
 */
export const UsageTotalsSchema = z.object({
  inputTokens: StoredTokenCount,
  outputTokens: StoredTokenCount,
  cacheReadTokens: StoredTokenCount,
  cacheWriteTokens: StoredTokenCount,
  costUsd: z.number().nonnegative().nullable(),
  unpricedTokens: StoredTokenCount,
});
export type UsageTotals = z.infer<typeof UsageTotalsSchema>;

export const NO_USAGE: UsageTotals = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: null, unpricedTokens: 0 };
