/**
 * A turn's usage carried in the turn-stop payload itself (a flavor's `payloadUsage`: OpenCode's
 * plugin sums its assistant messages' tokens), checked before it is sent: usage reports with a
 * model and whole, non-negative token counts, one per model. Part of the bridge bundle: no zod here
 * (the hub checks the event again with shared/protocol/usage.ts).
 */
import type { UsageReport } from '../../shared/protocol/usage.js';

const COUNTS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const;

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

export function usageFromPayload(value: unknown, field: string): { usage?: UsageReport[]; problem?: string } {
  if (value === undefined) return {};
  const bad = (why: string) => ({ problem: `the payload's ${field} ${why}; the turn is sent without usage` });
  if (!Array.isArray(value)) return bad('is not a list of usage reports');
  const seen = new Set<string>();
  const usage: UsageReport[] = [];
  for (const [index, entry] of value.entries()) {
    const report = entry as Record<string, unknown> | null;
    if (typeof report !== 'object' || report === null || typeof report.model !== 'string' || report.model === '' || report.model.length > 128) return bad(`[${index}] names no model`);
    if (seen.has(report.model)) return bad(`names the model ${JSON.stringify(report.model)} twice`);
    seen.add(report.model);
    for (const count of COUNTS) {
      const required = count === 'inputTokens' || count === 'outputTokens';
      if ((required || report[count] !== undefined) && !isCount(report[count])) return bad(`[${index}].${count} is not a whole, non-negative number of tokens`);
    }
    usage.push(Object.fromEntries([['model', report.model], ...COUNTS.filter((c) => report[c] !== undefined).map((c) => [c, report[c]])]) as UsageReport);
  }
  return usage.length > 0 ? { usage: usage.slice(0, 32) } : {};
}
