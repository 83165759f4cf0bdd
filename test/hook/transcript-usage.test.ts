/**
 * The transcript reader the hook bridge bundles (hub/hook/transcript-usage.ts), on a real Claude
 * Code transcript (fixtures/claude-transcript.jsonl names its source): one count per message however
 * many lines repeat it, reading from an offset only, a partly written last line left for later, a
 * missing or rewritten file, and a 200 MB transcript read in bounded memory.
 */
import { once } from 'node:events';
import { appendFileSync, copyFileSync, createWriteStream, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readUsageSince } from '../../hub/hook/transcript-usage.js';
import { useTempDir } from '../helpers/temp-dir.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'claude-transcript.jsonl');
const fixtureLines = readFileSync(FIXTURE, 'utf8').trimEnd().split('\n');
/** The fixture's two messages: msg_01PdWv… written as four lines with one usage, and msg_01F98…. */
const FIXTURE_TOTALS = { inputTokens: 3 + 1, outputTokens: 9 + 81, cacheReadTokens: 11442 + 26447, cacheWriteTokens: 15005 + 1598 };

let dir: string;
useTempDir('transcript-usage-', (made) => (dir = made));

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

describe('readUsageSince', () => {
  it('counts each assistant message of a real transcript once, by model, and ends at the end of the file', async () => {
    const { usageByModel, newOffset } = await readUsageSince(FIXTURE, 0);
    expect(usageByModel).toEqual({ 'claude-opus-4-6': FIXTURE_TOTALS });
    expect(newOffset).toBe(statSync(FIXTURE).size);
    // nothing new since: nothing counted, the offset stays
    expect(await readUsageSince(FIXTURE, newOffset)).toEqual({ usageByModel: {}, newOffset, texts: [] });
  });

  it('reads from the offset only: from the start of the last message, only that message counts', async () => {
    const lastLine = fixtureLines[fixtureLines.length - 1]!;
    const offset = statSync(FIXTURE).size - bytes(lastLine) - 1;
    expect(await readUsageSince(FIXTURE, offset)).toEqual({
      usageByModel: { 'claude-opus-4-6': { inputTokens: 1, outputTokens: 81, cacheReadTokens: 26447, cacheWriteTokens: 1598 } },
      newOffset: statSync(FIXTURE).size,
      texts: [],
    });
  });

  it('leaves a partly written last line for the next read (the offset stays before it), then counts it once complete', async () => {
    const file = join(dir, 't.jsonl');
    copyFileSync(FIXTURE, file);
    const complete = statSync(file).size;
    const next = fixtureLines[fixtureLines.length - 1]!.replace('msg_01F98LhabVGJf4j2BdysxjKk', 'msg_next').replace('"output_tokens":81', '"output_tokens":7');
    appendFileSync(file, next.slice(0, 200));
    expect(await readUsageSince(file, 0)).toEqual({ usageByModel: { 'claude-opus-4-6': FIXTURE_TOTALS }, newOffset: complete, texts: [{ text: '\n\n', at: Date.parse('2026-02-12T16:02:27.718Z') }] });
    appendFileSync(file, `${next.slice(200)}\n`);
    const { usageByModel, newOffset } = await readUsageSince(file, complete);
    expect(usageByModel['claude-opus-4-6']?.outputTokens).toBe(7);
    expect(newOffset).toBe(statSync(file).size);
  });

  it('keeps the largest count of a message whose lines disagree (a later line of a streamed message), and leaves out empty ones', async () => {
    const file = join(dir, 't.jsonl');
    const first = fixtureLines[4]!;
    const later = first.replace('"output_tokens":9', '"output_tokens":420');
    const synthetic = JSON.stringify({ type: 'assistant', message: { id: 'x', model: '<synthetic>', usage: { input_tokens: 0, output_tokens: 0 } } });
    writeFileSync(file, `${first}\n${later}\n${first}\n${synthetic}\n`);
    const { usageByModel } = await readUsageSince(file, 0);
    expect(usageByModel).toEqual({ 'claude-opus-4-6': { inputTokens: 3, outputTokens: 420, cacheReadTokens: 11442, cacheWriteTokens: 15005 } });
  });

  it('reads a missing transcript as empty, and a file shorter than the offset (rewritten) as empty from its end', async () => {
    expect(await readUsageSince(join(dir, 'not-yet.jsonl'), 1234)).toEqual({ usageByModel: {}, newOffset: 1234, texts: [] });
    const file = join(dir, 'short.jsonl');
    writeFileSync(file, `${fixtureLines[4]!}\n`);
    expect(await readUsageSince(file, 1_000_000)).toEqual({ usageByModel: {}, newOffset: statSync(file).size, texts: [] });
    await expect(readUsageSince(file, -1)).rejects.toThrow(/offset: must be a byte position/);
  });

  it('skips lines that are not JSON or longer than maxLineBytes, and goes on after them', async () => {
    const file = join(dir, 't.jsonl');
    const huge = fixtureLines[4]!.replace('"text":"\\n\\n"', `"text":"${'x'.repeat(5000)}"`).replace('msg_01PdWvcjJ6E9BgscDveYt9YV', 'msg_huge');
    writeFileSync(file, `not json {"usage"\n${huge}\n${fixtureLines[fixtureLines.length - 1]!}\n`);
    const { usageByModel, newOffset } = await readUsageSince(file, 0, { chunkBytes: 1024, maxLineBytes: 4096 });
    expect(usageByModel).toEqual({ 'claude-opus-4-6': { inputTokens: 1, outputTokens: 81, cacheReadTokens: 26447, cacheWriteTokens: 1598 } });
    expect(newOffset).toBe(statSync(file).size);
  });

  it('reads a 200 MB transcript in chunks, in bounded memory, counting every message once', async () => {
    const file = join(dir, 'big.jsonl');
    const [textLine, , toolLine] = [fixtureLines[4]!, fixtureLines[5]!, fixtureLines[6]!];
    // per message: two lines of one message id (as Claude Code writes them) and a large tool result without usage
    const toolResult = JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', content: 'r'.repeat(8000) }] } });
    const out = createWriteStream(file);
    let messages = 0;
    while (out.bytesWritten + out.writableLength < 200 * 1024 * 1024) {
      const id = `msg_big_${messages++}`;
      const block = `${textLine.replace('msg_01PdWvcjJ6E9BgscDveYt9YV', id)}\n${toolLine.replace('msg_01PdWvcjJ6E9BgscDveYt9YV', id)}\n${toolResult}\n`;
      if (!out.write(block)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    const size = statSync(file).size;
    expect(size).toBeGreaterThanOrEqual(200 * 1024 * 1024);

    const heapBefore = process.memoryUsage().heapUsed;
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed - heapBefore)), 5);
    const { usageByModel, newOffset } = await readUsageSince(file, 0);
    clearInterval(sampler);
    expect(newOffset).toBe(size);
    expect(usageByModel).toEqual({
      'claude-opus-4-6': { inputTokens: 3 * messages, outputTokens: 9 * messages, cacheReadTokens: 11442 * messages, cacheWriteTokens: 15005 * messages },
    });
    // the file is never held: far below its size (one 1 MiB chunk, a line, the recent message ids)
    expect(peak).toBeLessThan(64 * 1024 * 1024);
  }, 120_000);

  it('is bundled into the hook bridge: it and the readers it shares import Node built-ins and the registry only (no zod, nothing of the hub)', () => {
    // the registry (shared/flavors.ts) is plain data with no imports of its own
    expect(readFileSync(join(import.meta.dirname, '..', '..', 'shared', 'flavors.ts'), 'utf8')).not.toMatch(/^import /m);
    const readers = ['transcript-usage.ts', 'transcript-lines.ts', 'message-counter.ts', 'gemini-transcript-usage.ts'];
    for (const file of readers) {
      const source = readFileSync(join(import.meta.dirname, '..', '..', 'hub', 'hook', file), 'utf8');
      const imports = [...source.matchAll(/^import .* from '([^']+)';$/gm)].map((match) => match[1]!);
      // a sibling import is one of these readers, checked in turn
      for (const specifier of imports) expect(readers.map((r) => `./${r.replace(/\.ts$/, '.js')}`).includes(specifier) || specifier.startsWith('node:') || specifier === '../../shared/flavors.js', `${file}: ${specifier}`).toBe(true);
    }
  });
});
