/**
 * The turn's token usage, read by the bridge from the agent's transcript where the flavor declares
 * one (`transcriptUsage` in shared/flavors.ts; docs/usage.md). The spool state remembers, per agent
 * session, the transcript and the byte offset where the current turn began: set at the first
 * session-start or prompt-submit seen (what came before is not this hub's to count), moved on at
 * each turn-stop to where that read ended. So each turn is read from its start, never the whole
 * file; a turn-stop with no remembered start sends no usage rather than the whole history.
 * An agent may write its last message after its turn-stop hook read the transcript (Claude Code
 * flushes the file on a timer; `claude -p` then ends): the stopped turn's start is kept, and the
 * session-end reads that turn again to its end and sends its totals (the hub keeps the larger of
 * each count, so nothing is counted twice), and the next turn starts after it.
 * The registry's `transcriptUsage.format` picks the reader; no code here names an agent. A flavor
 * whose turn-stop payload carries its usage (`payloadUsage`) has it checked and sent as it is.
 * Part of the bridge bundle: node built-ins and the registry's plain data only.
 */
import { existsSync, statSync } from 'node:fs';
import { getFlavor, hookFieldsOf, type TranscriptFormat } from '../../shared/flavors.js';
import { readText } from '../../shared/json-path.js';
import type { UsageReport } from '../../shared/protocol/usage.js';
import type { SpoolState } from './spool.js';
import { readCodexUsageSince } from './codex-rollout-usage.js';
import { readGeminiUsageSince } from './gemini-transcript-usage.js';
import { usageFromPayload } from './payload-usage.js';
import { readUsageSince, type TranscriptUsage } from './transcript-usage.js';

/** The reader of each transcript format the registry may declare. */
export const TRANSCRIPT_READERS: Record<TranscriptFormat, (path: string, offset: number, model: string | undefined) => Promise<TranscriptUsage>> = {
  'claude-jsonl': (path, offset) => readUsageSince(path, offset),
  'gemini-jsonl': (path, offset) => readGeminiUsageSince(path, offset),
  'codex-jsonl': (path, offset, model) => readCodexUsageSince(path, offset, { ...(model ? { model } : {}) }),
};

/** The hub refuses more (UsageReportsSchema). */
const MAX_MODELS = 32;

/**
 * How long a turn-stop waits for its closing text to reach the transcript (the flavor's
 * `transcriptUsage.awaitsResponse`), and how often it looks: Claude Code flushes every 100 ms, so
 * ten flushes.
 */
export const CLOSING_TEXT_WAIT_MS = 1_000;
const CLOSING_TEXT_POLL_MS = 25;

/** Whether a read holds the turn's closing text (the payload's text ends with one of its text blocks). */
function holdsClosingText(read: TranscriptUsage, closing: string): boolean {
  const wanted = closing.trim();
  return read.texts === undefined || read.texts.some(({ text }) => text.trim() !== '' && wanted.endsWith(text.trim()));
}

/**
 * The turn's read from `offset`. Where the flavor names the payload's closing text, the read is
 * repeated until the transcript holds it (the agent's last message may still sit in its write
 * queue when the turn-stop hook fires), at most CLOSING_TEXT_WAIT_MS; then the last read stands.
 * No wait where there is no transcript to wait on (a path this machine does not have): the agent
 * would wait a second on every turn for nothing, and a short hook budget would be spent on it.
 */
async function readTurn(path: string, read: (offset: number) => Promise<TranscriptUsage>, offset: number, closing: string | undefined): Promise<TranscriptUsage> {
  const until = Date.now() + CLOSING_TEXT_WAIT_MS;
  let result = await read(offset);
  while (closing !== undefined && closing.trim() !== '' && existsSync(path) && !holdsClosingText(result, closing) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, CLOSING_TEXT_POLL_MS));
    result = await read(offset);
  }
  return result;
}

export function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0; // not written yet: the turn starts at its beginning
  }
}

/**
 * Updates the state's turn start for this payload and returns the usage to send with it (only at a
 * turn-stop with a remembered start, or a session-end after a turn-stop, and tokens read). Runs under the spool lock; never throws.
 */
export async function turnUsage(flavorId: string, payload: Record<string, unknown>, tag: string | null, state: SpoolState, hookName: string | undefined): Promise<{ usage?: UsageReport[]; problem?: string }> {
  const flavor = getFlavor(flavorId);
  if (flavor?.payloadUsage && hookName !== undefined && flavor.hooks[hookName] === 'turn-stop') return usageFromPayload(payload[flavor.payloadUsage.field], flavor.payloadUsage.field);
  const pathField = flavor?.transcriptUsage?.pathField;
  const read = flavor?.transcriptUsage ? TRANSCRIPT_READERS[flavor.transcriptUsage.format] : undefined;
  const action = hookName === undefined ? undefined : flavor?.hooks[hookName];
  const path = pathField === undefined ? undefined : readText(payload, pathField);
  if (path === undefined || read === undefined || tag === null || action === undefined) return {};
  const turns = (state.turnStarts ??= {});
  const held = turns[tag]?.path === path ? turns[tag] : undefined;
  const now = Date.now();
  if (action === 'session-start' || action === 'prompt-submit') {
    if (held === undefined) turns[tag] = { path, offset: sizeOf(path), touchedAt: now };
    // a new turn: the stopped one is not read again (what it wrote late is counted in this one)
    else if (action === 'prompt-submit') turns[tag] = { path, offset: held.offset, touchedAt: now };
    return {};
  }
  const from = action === 'turn-stop' ? held?.offset : action === 'session-end' ? held?.stoppedFrom : undefined;
  if (action !== 'turn-stop' && from === undefined) return {};
  if (held === undefined || from === undefined) {
    turns[tag] = { path, offset: sizeOf(path), touchedAt: now };
    return {};
  }
  try {
    // a session-end's payload may name no model: the turn-stop's, kept with the turn, stands for it
    const model = (flavor?.transcriptUsage?.modelField === undefined ? undefined : readText(payload, flavor.transcriptUsage.modelField)) ?? held.model;
    const closing = flavor?.transcriptUsage?.awaitsResponse ? readText(payload, hookFieldsOf(flavorId, payload).response) : undefined;
    const { usageByModel, newOffset, problem } = await readTurn(path, (offset) => read(path, offset, model), from, closing);
    turns[tag] = { path, offset: newOffset, ...(action === 'turn-stop' ? { stoppedFrom: from } : {}), ...(model ? { model } : {}), touchedAt: now };
    const usage = Object.entries(usageByModel)
      .slice(0, MAX_MODELS)
      .map(([model, tokens]) => ({ model, ...tokens }));
    return { ...(usage.length > 0 ? { usage } : {}), ...(problem === undefined ? {} : { problem }) };
  } catch (error) {
    return { problem: `the transcript ${path} could not be read (${(error as Error).message}); the turn is sent without usage` };
  }
}
