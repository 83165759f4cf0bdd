/**
 * The Gemini CLI transcript reader the hook bridge bundles (hub/hook/gemini-transcript-usage.ts), on
 * a session file in the writer's format (fixtures/gemini-transcript.jsonl: its first line names the
 * source): a turn's model messages counted once each, however often re-appended; a second turn read
 * from where the first ended; a missing file, a partly written or invalid line, a model without a
 * price, and the files it refuses to read (legacy whole JSON, a turn over the size cap).
 */
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { geminiTokens, readGeminiUsageSince } from '../../hub/hook/gemini-transcript-usage.js';
import { useTempDir } from '../helpers/temp-dir.js';

const lines = readFileSync(join(import.meta.dirname, 'fixtures', 'gemini-transcript.jsonl'), 'utf8').trimEnd().split('\n');
/** Source, header and the $set of the session context; then turn 1 (lines 3-8) and turn 2 (lines 9-12). */
const preamble = lines.slice(0, 3);
const turn1 = lines.slice(3, 9);
const turn2 = lines.slice(9);
/**
 * Turn 1: two gemini-2.5-pro messages (the first appended twice, its tool call updated).
 * input - cached, output + thoughts, cached: (8412 - 0) + (9120 - 8101), (37 + 152) + (96 + 60), 0 + 8101.
 */
const TURN1 = { 'gemini-2.5-pro': { inputTokens: 8412 + 1019, outputTokens: 189 + 156, cacheReadTokens: 8101, cacheWriteTokens: 0 } };
/** Turn 2: one gemini-2.5-flash message: 9350 - 8990 input, 12 output, 8990 cached. */
const TURN2 = { 'gemini-2.5-flash': { inputTokens: 360, outputTokens: 12, cacheReadTokens: 8990, cacheWriteTokens: 0 } };

let dir: string;
let file: string;
useTempDir('gemini-usage-', (made) => {
  dir = made;
  file = join(made, 'session-2026-01-15T10-22-c0ffee00.jsonl');
});

const text = (list: string[]) => list.map((l) => `${l}\n`).join('');
const bytes = (list: string[]) => Buffer.byteLength(text(list), 'utf8');

describe('readGeminiUsageSince', () => {
  it('counts a turn’s model messages once each, by model, from the turn’s start to the end of the file', async () => {
    writeFileSync(file, text([...preamble, ...turn1]));
    const read = await readGeminiUsageSince(file, bytes(preamble));
    expect(read).toEqual({ usageByModel: TURN1, newOffset: statSync(file).size });
    // nothing new since: nothing counted, the offset stays
    expect(await readGeminiUsageSince(file, read.newOffset)).toEqual({ usageByModel: {}, newOffset: read.newOffset });
  });

  it('a second turn counts only its own messages', async () => {
    writeFileSync(file, text([...preamble, ...turn1]));
    const first = await readGeminiUsageSince(file, bytes(preamble));
    appendFileSync(file, text(turn2));
    expect(await readGeminiUsageSince(file, first.newOffset)).toEqual({ usageByModel: TURN2, newOffset: statSync(file).size });
  });

  it('does not count the messages again from a $set that holds them all, nor undo a $rewindTo (those tokens were paid for)', async () => {
    const messages = [...turn1, ...turn2].filter((l) => l.startsWith('{"id":')).map((l) => JSON.parse(l) as unknown);
    writeFileSync(file, text([...preamble, ...turn1, JSON.stringify({ $set: { messages } }), JSON.stringify({ $rewindTo: JSON.parse(turn1[0]!).id })]));
    expect((await readGeminiUsageSince(file, bytes(preamble))).usageByModel).toEqual(TURN1);
  });

  it('reads a missing file as empty, the offset unchanged; a shorter file (replaced) from its end', async () => {
    expect(await readGeminiUsageSince(join(dir, 'not-yet.jsonl'), 1234)).toEqual({ usageByModel: {}, newOffset: 1234 });
    writeFileSync(file, text(preamble));
    expect(await readGeminiUsageSince(file, 1_000_000)).toEqual({ usageByModel: {}, newOffset: statSync(file).size });
  });

  it('leaves a partly written last line for the next read, skips a line that is not JSON, and goes on', async () => {
    const last = turn1.at(-2)!; // the second gemini-2.5-pro message
    writeFileSync(file, text([...preamble, ...turn1.slice(0, -2), '{"id":"broken","type":"gemini","tokens":{"input":5', 'not json']) + last.slice(0, 80));
    const partial = await readGeminiUsageSince(file, bytes(preamble));
    // the first message only; the offset stays before the unfinished line
    expect(partial).toEqual({ usageByModel: { 'gemini-2.5-pro': { inputTokens: 8412, outputTokens: 189, cacheReadTokens: 0, cacheWriteTokens: 0 } }, newOffset: statSync(file).size - 80 });
    appendFileSync(file, `${last.slice(80)}\n`);
    expect((await readGeminiUsageSince(file, partial.newOffset)).usageByModel).toEqual({ 'gemini-2.5-pro': { inputTokens: 1019, outputTokens: 156, cacheReadTokens: 8101, cacheWriteTokens: 0 } });
  });

  it('reports the tokens of a model it has no price for under that model (the hub gives them no cost)', async () => {
    writeFileSync(file, text(turn2.map((l) => l.replace('"model":"gemini-2.5-flash"', '"model":"gemini-3.1-pro-preview"'))));
    expect((await readGeminiUsageSince(file, 0)).usageByModel).toEqual({ 'gemini-3.1-pro-preview': TURN2['gemini-2.5-flash'] });
  });

  it('skips a line over maxLineBytes (a large $set) unread and counts what follows', async () => {
    const huge = JSON.stringify({ $set: { messages: [{ id: 'x', type: 'user', content: 'x'.repeat(10_000) }] } });
    writeFileSync(file, text([huge, ...turn2]));
    const read = await readGeminiUsageSince(file, 0, { chunkBytes: 1024, maxLineBytes: 4096 });
    expect(read).toEqual({ usageByModel: TURN2, newOffset: statSync(file).size });
  });

  it('refuses a legacy whole-JSON session file and a turn over the size cap: a problem, nothing counted, the offset at the end', async () => {
    const legacy = join(dir, 'session-2026-01-15T10-22-c0ffee00.json');
    writeFileSync(legacy, JSON.stringify({ sessionId: 's', projectHash: 'h', messages: turn1.filter((l) => l.startsWith('{"id":')).map((l) => JSON.parse(l) as unknown) }, null, 2));
    const old = await readGeminiUsageSince(legacy, 0);
    expect(old).toEqual({ usageByModel: {}, newOffset: statSync(legacy).size, problem: expect.stringMatching(/whole-JSON session file .*its usage is not read/) });

    writeFileSync(file, text([...preamble, ...turn1]));
    const capped = await readGeminiUsageSince(file, 0, { maxTurnBytes: 1024 });
    expect(capped).toEqual({ usageByModel: {}, newOffset: statSync(file).size, problem: expect.stringMatching(/grew by 0\.0 MiB this turn, over the 0\.0 MiB read/) });
  });

  it('maps Gemini’s counts: input less cached, plus tool-use prompt tokens; output plus thoughts; cached as cache reads', () => {
    expect(geminiTokens({ input: 1000, output: 5, cached: 800, thoughts: 40, tool: 7, total: 1052 })).toEqual({ inputTokens: 207, outputTokens: 45, cacheReadTokens: 800, cacheWriteTokens: 0 });
    // older files have no thoughts/tool; a cached count above the input (never written) cannot make input negative
    expect(geminiTokens({ input: 10, output: 2, cached: 50, total: 12 })).toEqual({ inputTokens: 0, outputTokens: 2, cacheReadTokens: 10, cacheWriteTokens: 0 });
    expect(geminiTokens({ input: -1, output: 'x' })).toEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });
});
