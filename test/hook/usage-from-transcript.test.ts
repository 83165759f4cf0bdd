/**
 * Usage from the bridge (docs/usage.md): real `session-hub hook claude` processes, fed Claude Code's
 * payloads (fixtures/claude-session.json) whose `transcript_path` names a transcript written as the
 * agent writes it (fixtures/claude-transcript.jsonl, cut from a real one: its first line names the
 * source). The bridge remembers the turn's start at UserPromptSubmit and reads from there at Stop;
 * the hub's turn gets the tokens and their cost.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TurnWithActivity } from '../../shared/protocol/session.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { fixture, sendHooks, useBridgeHub } from './run-cli.js';

const { env, get, sessionByTag } = useBridgeHub();
const lines = readFileSync(resolve(import.meta.dirname, 'fixtures', 'claude-transcript.jsonl'), 'utf8').trimEnd().split('\n');
/** Up to the user's prompt (line 4), then the assistant's five lines (two messages). */
const beforeAnswer = lines.slice(0, 4);
const answer = lines.slice(4);
/** The fixture's two messages of claude-opus-4-6 (test/hook/transcript-usage.test.ts counts them line by line). */
const TOKENS = { inputTokens: 3 + 1, outputTokens: 9 + 81, cacheReadTokens: 11442 + 26447, cacheWriteTokens: 15005 + 1598 };
/** claude-opus-4-6 in hub/usage/price-table.ts: $5 input, $25 output, $0.50 cache read, $6.25 cache write per million. */
const COST = (TOKENS.inputTokens * 5 + TOKENS.outputTokens * 25 + TOKENS.cacheReadTokens * 0.5 + TOKENS.cacheWriteTokens * 6.25) / 1e6;

const session = fixture('claude-session.json');
const byName = (name: string) => session.find((p) => p.hook_event_name === name)!;

let transcript: string;
useTempDir('usage-from-transcript-', (made) => (transcript = join(made, 'session.jsonl')));

const withTranscript = (payload: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ ...payload, transcript_path: transcript, ...extra });
const text = (lineList: string[]) => lineList.map((l) => `${l}\n`).join('');

async function turnsOf(tag: string): Promise<TurnWithActivity[]> {
  const found = await sessionByTag(tag);
  return get<TurnWithActivity[]>(`/api/sessions/${found.sid}/turns`);
}

/** A `claude -p` run whose last message reaches the transcript after its Stop hook read it, then ends (SessionEnd). */
async function runWithLateLastMessage(tag: string): Promise<void> {
  writeFileSync(transcript, text(beforeAnswer));
  await sendHooks('claude', [withTranscript(byName('SessionStart'), { session_id: tag }), withTranscript(byName('UserPromptSubmit'), { session_id: tag })], env());
  appendFileSync(transcript, text(answer.slice(0, -1)));
  await sendHooks('claude', [withTranscript(byName('Stop'), { session_id: tag })], env());
  appendFileSync(transcript, text(answer.slice(-1)));
  await sendHooks('claude', [withTranscript(byName('SessionEnd'), { session_id: tag })], env());
}

describe('the bridge reads a turn’s usage from the Claude Code transcript', () => {
  it('sends the turn’s tokens at Stop, read from where the turn began; the hub prices them', async () => {
    const tag = session[0]!.session_id as string;
    writeFileSync(transcript, text(lines.slice(0, 3)));
    await sendHooks('claude', [withTranscript(byName('SessionStart'))], env());
    appendFileSync(transcript, text([lines[3]!]));
    await sendHooks('claude', [withTranscript(byName('UserPromptSubmit'))], env());
    appendFileSync(transcript, text(answer));
    const results = await sendHooks('claude', [withTranscript(byName('Stop'))], env());
    expect(results[0]).toMatchObject({ code: 0, stdout: '', stderr: '' });

    // a second turn that wrote no assistant message: read from the first turn's end, it has no usage
    await sendHooks('claude', [withTranscript(session[6]!), withTranscript(session[7]!)], env());

    const turns = await turnsOf(tag);
    expect(turns.map((t) => t.status)).toEqual(['completed', 'completed']);
    expect(turns[0]!.usage).toHaveLength(1);
    expect(turns[0]!.usage[0]).toMatchObject({ model: 'claude-opus-4-6', ...TOKENS });
    expect(turns[0]!.usage[0]!.costUsd).toBeCloseTo(COST, 9);
    expect(turns[1]!.usage).toEqual([]);
  });

  it('counts only the turn: what the transcript held before the session was seen is not this hub’s', async () => {
    // hooks installed mid-session: the transcript already holds a whole answered turn
    const tag = 'mid-session-0001';
    writeFileSync(transcript, text([...beforeAnswer, ...answer]));
    await sendHooks('claude', [withTranscript(byName('UserPromptSubmit'), { session_id: tag })], env());
    await sendHooks('claude', [withTranscript(byName('Stop'), { session_id: tag })], env());
    const turns = await turnsOf(tag);
    expect(turns.map((t) => [t.status, t.usage])).toEqual([['completed', []]]);
  });

  it('a Stop with no remembered turn start sends no usage (never the whole file); the next turn counts', async () => {
    const tag = 'first-seen-at-stop';
    writeFileSync(transcript, text([...beforeAnswer, ...answer]));
    await sendHooks('claude', [withTranscript(byName('Stop'), { session_id: tag })], env());
    await sendHooks('claude', [withTranscript(byName('UserPromptSubmit'), { session_id: tag })], env());
    appendFileSync(transcript, text(answer.slice(-1)));
    await sendHooks('claude', [withTranscript(byName('Stop'), { session_id: tag })], env());
    const turns = await turnsOf(tag);
    const last = turns.at(-1)!;
    // the appended line repeats the second message (msg_01F98…): counted once for this turn
    expect(last.usage).toEqual([expect.objectContaining({ model: 'claude-opus-4-6', inputTokens: 1, outputTokens: 81, cacheReadTokens: 26447, cacheWriteTokens: 1598 })]);
  });

  it('a missing transcript leaves the turn without usage and the hook quiet', async () => {
    const tag = 'no-transcript-yet';
    await sendHooks('claude', [withTranscript(byName('UserPromptSubmit'), { session_id: tag })], env());
    const results = await sendHooks('claude', [withTranscript(byName('Stop'), { session_id: tag })], env());
    expect(results[0]).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const turns = await turnsOf(tag);
    expect(turns.map((t) => [t.status, t.usage])).toEqual([['completed', []]]);
  });

  it('the last message written after Stop read the transcript still counts: SessionEnd lands it on the turn (claude -p)', async () => {
    // Claude Code flushes its transcript on a timer: the Stop hook can read before the last message is on disk
    const tag = 'written-after-stop';
    await runWithLateLastMessage(tag);
    const turns = await turnsOf(tag);
    expect(turns).toHaveLength(1);
    expect(turns[0]!.usage).toEqual([expect.objectContaining({ model: 'claude-opus-4-6', ...TOKENS })]);
  });

  it('a resumed run counts from where the previous run’s last read ended, its late message not twice', async () => {
    const tag = 'resumed-after-late-write';
    await runWithLateLastMessage(tag);
    // resumed: the same transcript goes on with a new prompt and the first message again (as a new one)
    await sendHooks('claude', [withTranscript(byName('SessionStart'), { session_id: tag, source: 'resume' }), withTranscript(byName('UserPromptSubmit'), { session_id: tag })], env());
    appendFileSync(transcript, text([lines[3]!, ...answer.slice(0, -1)]));
    await sendHooks('claude', [withTranscript(byName('Stop'), { session_id: tag }), withTranscript(byName('SessionEnd'), { session_id: tag })], env());
    const turns = await turnsOf(tag);
    expect(turns.map((t) => t.usage.map((u) => u.outputTokens))).toEqual([[9 + 81], [9]]);
  });

  it('a truncated last line is left for the next read', async () => {
    const tag = 'truncated-line';
    writeFileSync(transcript, text(beforeAnswer));
    await sendHooks('claude', [withTranscript(byName('UserPromptSubmit'), { session_id: tag })], env());
    const last = answer.at(-1)!;
    appendFileSync(transcript, text(answer.slice(0, -1)) + last.slice(0, 100));
    await sendHooks('claude', [withTranscript(byName('Stop'), { session_id: tag })], env());
    const turns = await turnsOf(tag);
    // the first message only (the second's one line is not complete yet)
    expect(turns[0]!.usage).toEqual([expect.objectContaining({ model: 'claude-opus-4-6', inputTokens: 3, outputTokens: 9, cacheReadTokens: 11442, cacheWriteTokens: 15005 })]);
  });

  it('a Stop fired before the closing message reached the transcript waits for it (Claude Code flushes its transcript every 100 ms)', async () => {
    const tag = 'closing-message-late';
    writeFileSync(transcript, text(beforeAnswer));
    await sendHooks('claude', [withTranscript(byName('UserPromptSubmit'), { session_id: tag })], env());
    appendFileSync(transcript, text(answer));
    // the closing message as Claude Code writes it: a line of its own, with its usage
    const closing = JSON.stringify({
      type: 'assistant',
      requestId: 'req_closing',
      message: { model: 'claude-opus-4-6', id: 'msg_closing', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Added --verbose; tests pass.' }], usage: { input_tokens: 7, output_tokens: 40, cache_read_input_tokens: 100, cache_creation_input_tokens: 0 } },
    });
    const stop = sendHooks('claude', [withTranscript(byName('Stop'), { session_id: tag })], env());
    // the agent's write queue flushes after the hook was spawned
    await new Promise((resolve) => setTimeout(resolve, 300));
    appendFileSync(transcript, text([closing]));
    const results = await stop;
    expect(results[0]).toMatchObject({ code: 0, stderr: '' });
    const turns = await turnsOf(tag);
    expect(turns[0]!.usage).toEqual([
      expect.objectContaining({ model: 'claude-opus-4-6', inputTokens: TOKENS.inputTokens + 7, outputTokens: TOKENS.outputTokens + 40, cacheReadTokens: TOKENS.cacheReadTokens + 100, cacheWriteTokens: TOKENS.cacheWriteTokens }),
    ]);
  });
});
