/**
 * Token usage from a Gemini CLI session file (the `transcript_path` of its hook payloads), read from
 * a byte offset on, never the whole file (docs/usage.md, "The Gemini CLI transcript reader").
 *
 * The format, from the writer (google-gemini/gemini-cli packages/core/src/services/
 * chatRecordingService.ts, commit 016443b5e7bf36fc40313db8a901f639a4426a14): `session-*.jsonl`,
 * append-only, one JSON record per line: a metadata header, `{"$set":{…}}` patches (one may hold the
 * whole `messages` list again), `{"$rewindTo":id}`, and whole message records. A message is
 * re-appended, whole, each time it changes (its tokens arrive, a tool call updates): the last copy
 * of an id wins. A `type: "gemini"` message carries `model` and `tokens: { input, output, cached,
 * thoughts, tool, total }` (promptTokenCount, candidatesTokenCount, cachedContentTokenCount,
 * thoughtsTokenCount, toolUsePromptTokenCount, totalTokenCount of the API's usage metadata), set once.
 *
 * So: only message records are read (a `$set` copy of the messages would count them again), each id
 * once; a `$rewindTo` is ignored (the rewound answers were still paid for). Older Gemini CLI wrote
 * one whole JSON document (`session-*.json`, rewritten at each change); that file is refused with a
 * problem, not read whole (Gemini CLI itself migrates it to `.jsonl` when the session is resumed).
 *
 * Bundled into the bridge: Node built-ins, the registry's plain data and sibling readers only.
 */
import { GEMINI_JSONL_MODEL_MESSAGE_TYPE } from '../../shared/flavors.js';
import { count, countUsageSince, type Counted } from './message-counter.js';
import type { LineReadOptions } from './transcript-lines.js';
import type { TranscriptUsage } from './transcript-usage.js';

export interface GeminiReadOptions extends LineReadOptions {
  /**
   * A turn that appended more is not read (its usage is lost, with a problem): the agent waits on
   * its hooks (Gemini CLI runs them synchronously), so the read must stay short.
   */
  maxTurnBytes?: number;
}

const MAX_TURN_BYTES = 64 << 20;
const MiB = (bytes: number) => `${(bytes / (1 << 20)).toFixed(1)} MiB`;

/**
 * The UsageReport counts of one message's `tokens` (docs/usage.md, "Gemini's counts"): the API's
 * prompt count includes the cached tokens and its candidates count excludes the thoughts, which are
 * billed as output; tool-use prompt tokens are input the prompt count does not hold.
 */
export function geminiTokens(tokens: Record<string, unknown>): Counted['tokens'] {
  const input = count(tokens.input);
  const cached = Math.min(count(tokens.cached), input);
  return {
    inputTokens: input - cached + count(tokens.tool),
    outputTokens: count(tokens.output) + count(tokens.thoughts),
    cacheReadTokens: cached,
    cacheWriteTokens: 0, // the API bills no cache write per request (implicit caching; explicit cache storage is billed by the hour)
  };
}

/** The usage a model message line reports, or undefined for any other line (or one that is not JSON). */
function usageOfLine(line: string): (Counted & { key: string }) | undefined {
  // `$set` / `$rewindTo` lines and records without tokens (the header, user messages) are skipped unparsed
  if (line.startsWith('{"$') || !line.includes('"tokens"')) return undefined;
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return undefined;
  }
  const { id, type, model, tokens } = (record ?? {}) as { id?: unknown; type?: unknown; model?: unknown; tokens?: unknown };
  if (type !== GEMINI_JSONL_MODEL_MESSAGE_TYPE || typeof id !== 'string' || typeof model !== 'string' || model === '' || typeof tokens !== 'object' || tokens === null) return undefined;
  return { key: id, model, tokens: geminiTokens(tokens as Record<string, unknown>) };
}

/**
 * The usage of the model messages written from `offset` to the last complete line. A missing file
 * reads as empty; a file shorter than `offset` was replaced: nothing is counted, reading resumes at
 * its end. A legacy `.json` file, or a turn longer than `maxTurnBytes`, is not read: nothing is
 * counted, `problem` says why, and the next turn starts at the file's end.
 */
export async function readGeminiUsageSince(path: string, offset: number, options: GeminiReadOptions = {}): Promise<TranscriptUsage> {
  const { maxTurnBytes = MAX_TURN_BYTES, ...lineOptions } = options;
  let problem: string | undefined;
  const refuse = (size: number): boolean => {
    if (path.endsWith('.json')) problem = `the Gemini CLI transcript ${path} is a whole-JSON session file (Gemini CLI before JSONL recording); its usage is not read`;
    else if (size - offset > maxTurnBytes) problem = `the Gemini CLI transcript ${path} grew by ${MiB(size - offset)} this turn, over the ${MiB(maxTurnBytes)} read at a turn's end; the turn is sent without usage`;
    return problem !== undefined;
  };
  const { usageByModel, newOffset } = await countUsageSince(path, offset, usageOfLine, lineOptions, refuse);
  return { usageByModel, newOffset, ...(problem === undefined ? {} : { problem }) };
}
