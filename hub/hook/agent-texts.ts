/**
 * The agent's own words for the turn timeline (issue 34 point 8): no hook payload carries the text
 * the agent writes between its tool calls, but its transcript does. Where the flavor declares so
 * (`transcriptUsage.texts` in shared/flavors.ts), the bridge reads the text blocks written since its
 * last read at each tool hook and at the turn-stop, and sends them with that event (`texts`); the
 * hub places them before the event's tool use, or at the turn's end (docs/hooks.md).
 *
 * Bounded: a text longer than LIMITS.maxAgentTextChars is cut there and marked; an event carries
 * at most LIMITS.maxAgentTextsPerEvent texts and LIMITS.maxAgentTextCharsPerEvent characters (the
 * rest is dropped, and the hook's stderr says so).
 *
 * Part of the bridge bundle: node built-ins and the registry's plain data only.
 */
import { getFlavor, type HookAction } from '../../shared/flavors.js';
import { readText } from '../../shared/json-path.js';
import type { AgentTextReport } from '../../shared/protocol/hooks.js';
import { AGENT_TEXT_CUT_MARK, LIMITS } from '../../shared/protocol/limits.js';
import type { SpoolState } from './spool.js';
import type { TranscriptText } from './transcript-usage.js';
import { sizeOf, TRANSCRIPT_READERS } from './turn-usage.js';

/** The hooks that send what the agent wrote since the last read: it wrote it before this call, or before it stopped. */
const SENDS_TEXTS: ReadonlySet<HookAction> = new Set(['tool-start', 'tool-use', 'tool-failure', 'turn-stop']);

/** The texts as sent: blank ones left out, each cut to the limit, the event's share bounded. */
export function boundTexts(read: readonly TranscriptText[]): { texts: AgentTextReport[]; dropped: number } {
  const texts: AgentTextReport[] = [];
  let chars = 0;
  let dropped = 0;
  for (const { text, at } of read) {
    if (text.trim() === '') continue;
    const cut = text.length > LIMITS.maxAgentTextChars;
    const sent = cut ? `${text.slice(0, LIMITS.maxAgentTextChars)}${AGENT_TEXT_CUT_MARK}` : text;
    if (texts.length >= LIMITS.maxAgentTextsPerEvent || chars + sent.length > LIMITS.maxAgentTextCharsPerEvent + AGENT_TEXT_CUT_MARK.length) {
      dropped++;
      continue;
    }
    chars += sent.length;
    texts.push({ text: sent, ...(at === undefined ? {} : { at }), ...(cut ? { cut: true as const } : {}) });
  }
  return { texts, dropped };
}

/**
 * Moves the session's words offset for this payload and returns the texts to send with it. A
 * session-start or prompt-submit starts from the transcript's end (what came before is not this
 * turn's); a first tool hook with no offset yet starts where the turn began, if known, else at the
 * end. Runs under the spool lock, after the turn's usage read (which waits for the closing text to
 * be on disk); never throws.
 */
export async function agentTexts(flavorId: string, payload: Record<string, unknown>, tag: string | null, state: SpoolState, hookName: string | undefined): Promise<{ texts?: AgentTextReport[]; problem?: string }> {
  const declared = getFlavor(flavorId)?.transcriptUsage;
  const action = hookName === undefined ? undefined : getFlavor(flavorId)?.hooks[hookName];
  const path = declared?.texts ? readText(payload, declared.pathField) : undefined;
  if (declared === undefined || path === undefined || tag === null || action === undefined) return {};
  const offsets = (state.textOffsets ??= {});
  const now = Date.now();
  if (action === 'session-start' || action === 'prompt-submit') {
    offsets[tag] = { path, offset: sizeOf(path), touchedAt: now };
    return {};
  }
  if (!SENDS_TEXTS.has(action)) return {};
  const turnStart = state.turnStarts?.[tag]?.path === path ? state.turnStarts[tag].offset : undefined;
  const from = offsets[tag]?.path === path ? offsets[tag].offset : turnStart ?? sizeOf(path);
  try {
    const read = await TRANSCRIPT_READERS[declared.format](path, from, undefined);
    offsets[tag] = { path, offset: read.newOffset, touchedAt: now };
    const { texts, dropped } = boundTexts(read.texts ?? []);
    const problem = dropped > 0 ? `${dropped} of the agent's texts were not sent (over ${LIMITS.maxAgentTextsPerEvent} texts or ${LIMITS.maxAgentTextCharsPerEvent} characters in one event)` : undefined;
    return { ...(texts.length > 0 ? { texts } : {}), ...(problem ? { problem } : {}) };
  } catch (error) {
    return { problem: `the transcript ${path} could not be read for the agent's words (${(error as Error).message}); the event is sent without them` };
  }
}
