/**
 * Token usage from a Claude Code transcript (the JSONL file at `transcript_path` of every hook
 * payload), read from a byte offset on, never the whole file: the hook bridge keeps the offset where
 * the turn began and reads from it at the turn-stop hook (docs/usage.md).
 *
 * This module is bundled into the bridge: Node built-ins only, no zod, no hub imports.
 *
 * What a transcript holds (test/hook/fixtures/claude-transcript.jsonl, from a real one): one line
 * per content block of an assistant message, each repeating the message's `id`, the `requestId` and
 * the `usage` — so a message is counted once, with the largest of each count its lines carry.
 */
import { count, countUsageSince, type Counted, type TokenCounts } from './message-counter.js';
import type { LineReadOptions } from './transcript-lines.js';

export type { TokenCounts } from './message-counter.js';

export interface TranscriptUsage {
  /** Tokens per model of the messages in [offset, newOffset); models with no tokens are absent. */
  usageByModel: Record<string, TokenCounts>;
  /** Where the next read starts: after the last complete line (a partly written last line is left for later). */
  newOffset: number;
  /** Why the transcript was not (wholly) read, for the hook's stderr; the hook goes on. */
  problem?: string;
  /**
   * The assistant's text blocks read, in order, with the time of their line where it has one, where
   * the format has them: the bridge checks the turn's closing text is among them before trusting
   * the read (turn-usage.ts), and sends them as the agent's words (agent-texts.ts).
   */
  texts?: TranscriptText[];
}

export interface TranscriptText {
  text: string;
  /** The line's `timestamp` (ms), by the agent machine's clock. */
  at?: number;
}

export type ReadOptions = LineReadOptions;

/** The usage an assistant line reports, or undefined for any other line (or one that is not JSON); its text blocks go to `texts`. */
function usageOfLine(line: string, texts: TranscriptText[]): (Counted & { key: string | undefined }) | undefined {
  // most lines are tool results and progress: skip them without parsing
  if (!line.includes('"usage"')) return undefined;
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return undefined;
  }
  const { type, message, requestId, timestamp } = (entry ?? {}) as { type?: unknown; message?: unknown; requestId?: unknown; timestamp?: unknown };
  const { model, usage, id, content } = (message ?? {}) as { model?: unknown; usage?: unknown; id?: unknown; content?: unknown };
  if (type !== 'assistant' || typeof model !== 'string' || model === '' || typeof usage !== 'object' || usage === null) return undefined;
  if (Array.isArray(content)) {
    const at = typeof timestamp === 'string' ? Date.parse(timestamp) : NaN;
    for (const block of content as { type?: unknown; text?: unknown }[]) {
      if (block?.type === 'text' && typeof block.text === 'string') texts.push({ text: block.text, ...(Number.isFinite(at) ? { at } : {}) });
    }
  }
  const u = usage as Record<string, unknown>;
  const tokens = {
    inputTokens: count(u.input_tokens),
    outputTokens: count(u.output_tokens),
    cacheReadTokens: count(u.cache_read_input_tokens),
    cacheWriteTokens: count(u.cache_creation_input_tokens),
  };
  const key = typeof id === 'string' ? `${id}\u0000${typeof requestId === 'string' ? requestId : ''}` : undefined;
  return { model, tokens, key };
}

/**
 * The usage in the transcript from `offset` to its last complete line. A missing file reads as
 * empty (the agent has not written it yet); a file shorter than `offset` was rewritten: nothing is
 * counted and reading resumes at its end. Memory: one chunk and one line at a time.
 */
export async function readUsageSince(path: string, offset: number, options: ReadOptions = {}): Promise<TranscriptUsage> {
  const texts: TranscriptText[] = [];
  const read = await countUsageSince(path, offset, (line) => usageOfLine(line, texts), options);
  return { ...read, texts };
}
