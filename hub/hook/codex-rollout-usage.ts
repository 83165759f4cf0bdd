/**
 * Token usage from a Codex session file (the rollout JSONL under CODEX_HOME/sessions, the
 * `transcript_path` of its hook payloads), read from a byte offset on, never the whole file.
 *
 * The format, as Codex CLI 0.169.0 writes it (test/hook/fixtures/codex-rollout.jsonl, recorded from
 * the real CLI): one JSON record a line, `{ timestamp, type, payload }`. A `turn_context` record opens
 * each turn and names its `payload.model`; a `token_usage_record` follows each model response with
 * that response's `payload.usage` ({ input_tokens, cached_input_tokens, cache_write_input_tokens,
 * output_tokens, reasoning_output_tokens, total_tokens }) and its `payload.response_id`. OpenAI's
 * input count includes the cached tokens, and its output count the reasoning tokens.
 *
 * So each `token_usage_record` is counted once (keyed by its response id) under the model of the
 * latest `turn_context` before it in this read; when the read began after it (the turn's start is
 * taken at its first hook), under `options.model` (the hook payload's `model`), else "unknown".
 * Bundled into the bridge: Node built-ins and sibling readers only.
 */
import { count, countUsageSince, type Counted } from './message-counter.js';
import type { LineReadOptions } from './transcript-lines.js';
import type { TranscriptUsage } from './transcript-usage.js';

/** The UsageReport counts of one response's usage. */
export function codexTokens(usage: Record<string, unknown>): Counted['tokens'] {
  const input = count(usage.input_tokens);
  const cached = Math.min(count(usage.cached_input_tokens), input);
  return { inputTokens: input - cached, outputTokens: count(usage.output_tokens), cacheReadTokens: cached, cacheWriteTokens: count(usage.cache_write_input_tokens) };
}

export async function readCodexUsageSince(path: string, offset: number, options: LineReadOptions & { model?: string } = {}): Promise<TranscriptUsage> {
  const { model: fallback, ...lineOptions } = options;
  let model = fallback ?? 'unknown';
  const usageOfLine = (line: string): (Counted & { key: string | undefined }) | undefined => {
    const isContext = line.includes('"type":"turn_context"');
    if (!isContext && !line.includes('"type":"token_usage_record"')) return undefined;
    let record: { type?: unknown; payload?: Record<string, unknown> };
    try {
      record = JSON.parse(line) as typeof record;
    } catch {
      return undefined;
    }
    const payload = record.payload ?? {};
    if (record.type === 'turn_context') {
      if (typeof payload.model === 'string' && payload.model !== '') model = payload.model;
      return undefined;
    }
    if (record.type !== 'token_usage_record' || typeof payload.usage !== 'object' || payload.usage === null) return undefined;
    return { key: typeof payload.response_id === 'string' ? payload.response_id : undefined, model, tokens: codexTokens(payload.usage as Record<string, unknown>) };
  };
  return countUsageSince(path, offset, usageOfLine, lineOptions);
}
