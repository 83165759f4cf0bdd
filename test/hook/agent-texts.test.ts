/**
 * The bridge's read of the agent's words (hub/hook/agent-texts.ts) on a real transcript file: what
 * was written since the last read, once; nothing from before the turn; bounded as docs/hooks.md
 * says. And the hub route refusing a text over the bound, naming the field.
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTexts, boundTexts } from '../../hub/hook/agent-texts.js';
import type { SpoolState } from '../../hub/hook/spool.js';
import { AGENT_TEXT_CUT_MARK, LIMITS } from '../../shared/protocol/limits.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

let dir: string;
beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), 'session-hub-agent-texts-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function assistantLine(file: string, text: string, timestamp = '2026-11-29T01:00:00.000Z'): void {
  const message = { id: `msg_${text.length}`, model: 'claude-sonnet-4-5', content: [{ type: 'text', text }], usage: { input_tokens: 1, output_tokens: 1 } };
  appendFileSync(file, `${JSON.stringify({ type: 'assistant', timestamp, requestId: 'req', message })}\n`);
}

describe('agentTexts: the words written since the last read', () => {
  it('none from before the prompt; at a tool hook what came since, with its time; the same words never twice', async () => {
    const transcript = join(dir, 'a.jsonl');
    writeFileSync(transcript, '');
    assistantLine(transcript, 'an earlier turn said this');
    const state: SpoolState = { seqs: {}, told: {} };
    const payload = (event: string) => ({ session_id: 's1', transcript_path: transcript, hook_event_name: event });
    expect(await agentTexts('claude', payload('UserPromptSubmit'), 's1', state, 'UserPromptSubmit')).toEqual({});
    assistantLine(transcript, 'Looking first.', '2026-11-29T01:00:01.000Z');
    expect(await agentTexts('claude', payload('PreToolUse'), 's1', state, 'PreToolUse')).toEqual({ texts: [{ text: 'Looking first.', at: Date.parse('2026-11-29T01:00:01.000Z') }] });
    expect(await agentTexts('claude', payload('PostToolUse'), 's1', state, 'PostToolUse')).toEqual({});
    assistantLine(transcript, 'Done.');
    expect((await agentTexts('claude', payload('Stop'), 's1', state, 'Stop')).texts?.map((t) => t.text)).toEqual(['Done.']);
  });

  it('a flavor whose registry entry declares no texts sends none (Codex)', async () => {
    const transcript = join(dir, 'b.jsonl');
    writeFileSync(transcript, '');
    const state: SpoolState = { seqs: {}, told: {} };
    const payload = { session_id: 's2', transcript_path: transcript };
    await agentTexts('codex', { ...payload, hook_event_name: 'UserPromptSubmit' }, 's2', state, 'UserPromptSubmit');
    assistantLine(transcript, 'words');
    expect(await agentTexts('codex', { ...payload, hook_event_name: 'PreToolUse' }, 's2', state, 'PreToolUse')).toEqual({});
  });
});

describe('boundTexts', () => {
  it('cuts a text over 20,000 characters with the mark, leaves blank ones out, keeps an event under its bounds', () => {
    const long = 'x'.repeat(LIMITS.maxAgentTextChars + 5);
    expect(boundTexts([{ text: long }, { text: ' \n ' }])).toEqual({ texts: [{ text: `${'x'.repeat(LIMITS.maxAgentTextChars)}${AGENT_TEXT_CUT_MARK}`, cut: true }], dropped: 0 });
    const many = Array.from({ length: LIMITS.maxAgentTextsPerEvent + 3 }, (_, i) => ({ text: `t${i}` }));
    expect(boundTexts(many)).toMatchObject({ dropped: 3 });
    const big = Array.from({ length: 6 }, () => ({ text: long }));
    const { texts, dropped } = boundTexts(big);
    expect(texts.reduce((sum, t) => sum + t.text.length, 0)).toBeLessThanOrEqual(LIMITS.maxAgentTextCharsPerEvent + AGENT_TEXT_CUT_MARK.length);
    // five cut texts are 100,000 characters and five marks: four fit
    expect([texts.length, dropped]).toEqual([4, 2]);
  });
});

describe('POST /api/hooks: texts', () => {
  let hub: TestHub;
  beforeAll(async () => void (hub = await startTestHub()));
  afterAll(async () => hub?.close());

  it('refuses a text over the bound with 400 naming texts, and applies nothing', async () => {
    const event = { id: 'too-long', flavor: 'claude', firedAt: Date.now(), seq: 0, payload: { session_id: 'too-long', hook_event_name: 'Stop' }, texts: [{ text: 'y'.repeat(LIMITS.maxAgentTextChars + AGENT_TEXT_CUT_MARK.length + 1) }] };
    const response = await fetch(`${hub.url}/api/hooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.tokens.runner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ events: [event] }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string; message: string };
    expect(body.error).toBe('invalid_payload');
    expect(body.message).toContain('texts');
  });
});
