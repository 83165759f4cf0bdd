/**
 * The Codex rollout reader (hub/hook/codex-rollout-usage.ts) on a real rollout file: Codex CLI
 * 0.169.0 from npm, one `codex exec` turn (a shell command, then "All done.") against the scripted
 * Responses server of test/agents, two responses of 150 input and 25 output tokens each
 * (test/hook/fixtures/codex-rollout.jsonl; paths replaced by /work/project and /home/user).
 */
import { appendFileSync, copyFileSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCodexUsageSince } from '../../hub/hook/codex-rollout-usage.js';
import { useTempDir } from '../helpers/temp-dir.js';

const FIXTURE = resolve(import.meta.dirname, 'fixtures/codex-rollout.jsonl');
let dir = '';
useTempDir('session-hub-codex-rollout-', (made) => (dir = made));

describe('Codex rollout usage', () => {
  it('counts each response once, under the model of the turn_context, input without the cached tokens', async () => {
    const read = await readCodexUsageSince(FIXTURE, 0);
    expect(read.usageByModel).toEqual({ 'gpt-5-codex': { inputTokens: 300, outputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 0 } });
    expect(read.newOffset).toBe(statSync(FIXTURE).size);
  });

  it('a read that begins after the turn_context counts under the model the hook payload names', async () => {
    const text = readFileSync(FIXTURE, 'utf8');
    const afterContext = Buffer.byteLength(text.slice(0, text.indexOf('\n', text.indexOf('"type":"turn_context"')) + 1));
    expect((await readCodexUsageSince(FIXTURE, afterContext, { model: 'gpt-5.1-codex' })).usageByModel).toEqual({ 'gpt-5.1-codex': { inputTokens: 300, outputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 0 } });
    expect(Object.keys((await readCodexUsageSince(FIXTURE, afterContext)).usageByModel)).toEqual(['unknown']);
  });

  it('splits cached input from input, and a response written twice counts once', async () => {
    const file = join(dir, 'rollout.jsonl');
    copyFileSync(FIXTURE, file);
    const offset = statSync(file).size;
    const record = (id: string) => JSON.stringify({ type: 'token_usage_record', payload: { response_id: id, usage: { input_tokens: 1000, cached_input_tokens: 800, cache_write_input_tokens: 5, output_tokens: 40, reasoning_output_tokens: 10, total_tokens: 1040 } } });
    appendFileSync(file, `${JSON.stringify({ type: 'turn_context', payload: { model: 'gpt-5-codex' } })}\n${record('resp_a')}\n${record('resp_a')}\n${record('resp_b')}\nnot json\n`);
    expect((await readCodexUsageSince(file, offset)).usageByModel).toEqual({ 'gpt-5-codex': { inputTokens: 400, outputTokens: 80, cacheReadTokens: 1600, cacheWriteTokens: 10 } });
  });
});
