/**
 * Sums a transcript's token counts per model, counting each message once however many lines
 * repeat it (Claude Code writes a line per content block; Gemini CLI re-appends a message whenever
 * it changes). Shared by the transcript readers of the hook bridge: Node built-ins only.
 */
import { readLinesSince, type LineReadOptions } from './transcript-lines.js';

export interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface Counted {
  model: string;
  tokens: TokenCounts;
}

/**
 * Messages whose lines may still come: a message's lines are written close together, so only recent
 * ones are kept apart; older ones go into the sums (bounds memory on a long transcript).
 */
const RECENT_MESSAGES = 10_000;

/** A token count as a transcript holds it: anything but a whole number >= 0 counts as none. */
export const count = (value: unknown): number => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0);

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

/** Counts each message once: lines of one message (by key) keep the largest of each count. */
export class MessageCounter {
  readonly byModel: Record<string, TokenCounts> = {};
  private readonly recent = new Map<string, Counted>();

  add(counted: Counted & { key: string | undefined }): void {
    // a message without a key cannot be matched with its other lines: counted as it stands
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
 * The token sums per model of the lines from `offset` to the last complete one, each message once:
 * `usageOfLine` says what a line reports (undefined for a line that reports nothing). `skipFrom`
 * as in readLinesSince.
 */
export async function countUsageSince(
  path: string,
  offset: number,
  usageOfLine: (line: string) => (Counted & { key: string | undefined }) | undefined,
  options: LineReadOptions = {},
  skipFrom?: (size: number) => boolean,
): Promise<{ usageByModel: Record<string, TokenCounts>; newOffset: number }> {
  const messages = new MessageCounter();
  const { newOffset } = await readLinesSince(
    path,
    offset,
    (line) => {
      const counted = usageOfLine(line);
      if (counted) messages.add(counted);
    },
    options,
    skipFrom,
  );
  return { usageByModel: messages.totals(), newOffset };
}
