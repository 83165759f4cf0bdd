/**
 * Token usage from a Claude Code transcript (the JSONL file at `transcript_path` of every hook
 * payload), read from a byte offset on, never the whole file: the hook bridge keeps the offset where
 * the turn began and reads from it at each hook, so it sends the turn's totals so far (the hub keeps
 * the larger of each count: docs/usage.md).
 *
 * This module is bundled into the bridge: Node built-ins only, no zod, no hub imports.
 *
 * What a transcript holds (test/hook/fixtures/claude-transcript.jsonl, from a real one): one line
 * per content block of an assistant message, each repeating the message's `id`, the `requestId` and
 * the `usage` — so a message is counted once, with the largest of each count its lines carry.
 */
import { open } from 'node:fs/promises';

export interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface TranscriptUsage {
  /** Tokens per model of the messages in [offset, newOffset); models with no tokens are absent. */
  usageByModel: Record<string, TokenCounts>;
  /** Where the next read starts: after the last complete line (a partly written last line is left for later). */
  newOffset: number;
}

export interface ReadOptions {
  /** Bytes read at a time. */
  chunkBytes?: number;
  /** A longer line is skipped unread (its usage is lost): bounds the memory one line may take. */
  maxLineBytes?: number;
}

const NEWLINE = 0x0a;
/**
 * Messages whose lines may still come: a message's lines are written together, so only recent ones
 * are kept apart; older ones go into the sums (bounds memory on a long transcript).
 */
const RECENT_MESSAGES = 10_000;
const DEFAULTS = { chunkBytes: 1 << 20, maxLineBytes: 64 << 20 };

const count = (value: unknown): number => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0);

interface Counted {
  model: string;
  tokens: TokenCounts;
}

/** The usage an assistant line reports, or undefined for any other line (or one that is not JSON). */
function usageOfLine(line: string): (Counted & { key: string | undefined }) | undefined {
  // most lines are tool results and progress: skip them without parsing
  if (!line.includes('"usage"')) return undefined;
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return undefined;
  }
  const { type, message, requestId } = (entry ?? {}) as { type?: unknown; message?: unknown; requestId?: unknown };
  const { model, usage, id } = (message ?? {}) as { model?: unknown; usage?: unknown; id?: unknown };
  if (type !== 'assistant' || typeof model !== 'string' || model === '' || typeof usage !== 'object' || usage === null) return undefined;
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

function larger(a: TokenCounts, b: TokenCounts): TokenCounts {
  return {
    inputTokens: Math.max(a.inputTokens, b.inputTokens),
    outputTokens: Math.max(a.outputTokens, b.outputTokens),
    cacheReadTokens: Math.max(a.cacheReadTokens, b.cacheReadTokens),
    cacheWriteTokens: Math.max(a.cacheWriteTokens, b.cacheWriteTokens),
  };
}

/** Adds a message's tokens to its model's sum (a message with none, e.g. Claude Code's `<synthetic>` ones, is left out). */
function addTo(byModel: Record<string, TokenCounts>, { model, tokens }: Counted): void {
  if (tokens.inputTokens + tokens.outputTokens + tokens.cacheReadTokens + tokens.cacheWriteTokens === 0) return;
  const held = byModel[model] ?? { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  byModel[model] = {
    inputTokens: held.inputTokens + tokens.inputTokens,
    outputTokens: held.outputTokens + tokens.outputTokens,
    cacheReadTokens: held.cacheReadTokens + tokens.cacheReadTokens,
    cacheWriteTokens: held.cacheWriteTokens + tokens.cacheWriteTokens,
  };
}

/** Counts each message once: lines of one message (by id and request) keep the largest of each count. */
class MessageCounter {
  readonly byModel: Record<string, TokenCounts> = {};
  private readonly recent = new Map<string, Counted>();

  add(counted: Counted & { key: string | undefined }): void {
    // a message without an id cannot be matched with its other lines: counted as it stands
    if (counted.key === undefined) return addTo(this.byModel, counted);
    const held = this.recent.get(counted.key);
    this.recent.delete(counted.key);
    this.recent.set(counted.key, { model: counted.model, tokens: held ? larger(held.tokens, counted.tokens) : counted.tokens });
    if (this.recent.size > RECENT_MESSAGES) {
      const [oldest, message] = this.recent.entries().next().value!;
      this.recent.delete(oldest);
      addTo(this.byModel, message);
    }
  }

  totals(): Record<string, TokenCounts> {
    for (const message of this.recent.values()) addTo(this.byModel, message);
    this.recent.clear();
    return this.byModel;
  }
}

/**
 * The usage in the transcript from `offset` to its last complete line. A missing file reads as
 * empty (the agent has not written it yet); a file shorter than `offset` was rewritten: nothing is
 * counted and reading resumes at its end. Memory: one chunk and one line at a time.
 */
export async function readUsageSince(path: string, offset: number, options: ReadOptions = {}): Promise<TranscriptUsage> {
  const { chunkBytes, maxLineBytes } = { ...DEFAULTS, ...options };
  if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`offset: must be a byte position (a whole number >= 0), got ${offset}`);
  let file;
  try {
    file = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { usageByModel: {}, newOffset: offset };
    throw error;
  }
  try {
    const { size } = await file.stat();
    if (size < offset) return { usageByModel: {}, newOffset: size };
    const messages = new MessageCounter();
    const chunk = Buffer.alloc(chunkBytes);
    /** The start of the line being read, and its bytes so far (unless it is being skipped). */
    let lineStart = offset;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let skipping = false;
    let position = offset;
    for (;;) {
      const { bytesRead } = await file.read(chunk, 0, chunkBytes, position);
      if (bytesRead === 0) break;
      let from = 0;
      for (let at = chunk.indexOf(NEWLINE, 0); at !== -1 && at < bytesRead; at = chunk.indexOf(NEWLINE, from)) {
        if (!skipping) {
          pending.push(chunk.subarray(from, at));
          const counted = usageOfLine(Buffer.concat(pending).toString('utf8'));
          if (counted) messages.add(counted);
        }
        pending = [];
        pendingBytes = 0;
        skipping = false;
        from = at + 1;
        lineStart = position + from;
      }
      const rest = bytesRead - from;
      if (!skipping && rest > 0) {
        pendingBytes += rest;
        if (pendingBytes > maxLineBytes) {
          skipping = true;
          pending = [];
        } else {
          pending.push(Buffer.from(chunk.subarray(from, bytesRead)));
        }
      }
      position += bytesRead;
    }
    return { usageByModel: messages.totals(), newOffset: lineStart };
  } finally {
    await file.close();
  }
}
