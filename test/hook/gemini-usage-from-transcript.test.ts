/**
 * Gemini CLI usage from the bridge (docs/usage.md): real `node dist/hook-bridge.cjs gemini` processes
 * (the command `hook install` writes into .gemini/settings.json), fed
 * Gemini CLI's BeforeAgent and AfterAgent payloads (fixtures/attention/gemini-*.json, from its hooks
 * reference) whose `transcript_path` names a session file written as Gemini CLI writes it
 * (fixtures/gemini-transcript.jsonl: its first line names the source). The bridge remembers the
 * turn's start at BeforeAgent and reads from there at AfterAgent; the hub's turns get the tokens and
 * their cost, none for a model without a price.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TurnWithActivity } from '../../shared/protocol/session.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { useBridgeHub } from './run-cli.js';

const { env, get, sessionByTag } = useBridgeHub();
const FIXTURES = resolve(import.meta.dirname, 'fixtures');
const lines = readFileSync(join(FIXTURES, 'gemini-transcript.jsonl'), 'utf8').trimEnd().split('\n');
const payload = (name: string) => (JSON.parse(readFileSync(join(FIXTURES, 'attention', name), 'utf8')) as { payload: Record<string, unknown> }).payload;
const beforeAgent = payload('gemini-before-agent.json');
const afterAgent = payload('gemini-after-agent.json');

/** gemini-transcript-usage.test.ts derives these from the fixture's tokens. */
const TURN1 = { model: 'gemini-2.5-pro', inputTokens: 9431, outputTokens: 345, cacheReadTokens: 8101, cacheWriteTokens: 0 };
const TURN2 = { inputTokens: 360, outputTokens: 12, cacheReadTokens: 8990, cacheWriteTokens: 0 };
/** hub/usage/price-table.ts: gemini-2.5-pro $1.25 input, $10 output, cache reads a tenth of input, per million. */
const COST1 = (9431 * 1.25 + 345 * 10 + 8101 * 0.125) / 1e6;

let dir: string;
let transcript: string;
useTempDir('gemini-usage-from-transcript-', (made) => {
  dir = made;
  transcript = join(made, 'session-2026-01-15T10-22-c0ffee00.jsonl');
});

// what `hook install` writes: node runs the bundled bridge directly
const BRIDGE = resolve(import.meta.dirname, '../../dist/hook-bridge.cjs');

/** One hook call as Gemini CLI makes it (payload on stdin), waited for as Gemini CLI waits for it. */
function bridge(payload: Record<string, unknown>, hookEnv: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BRIDGE, 'gemini'], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...hookEnv } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(JSON.stringify(payload));
  return new Promise((resolveExit) => child.once('close', (code) => resolveExit({ code, stdout, stderr })));
}

const text = (list: string[]) => list.map((l) => `${l}\n`).join('');
const hook = (p: Record<string, unknown>, tag: string) => ({ ...p, session_id: tag, transcript_path: transcript });

describe('the bridge reads a turn’s usage from the Gemini CLI session file', () => {
  it('sends each turn’s own tokens at AfterAgent; the hub prices them, and leaves a model without a price unpriced', async () => {
    const tag = 'gemini-usage-0001';
    writeFileSync(transcript, text(lines.slice(0, 3)));
    await bridge(hook(beforeAgent, tag), env());
    appendFileSync(transcript, text(lines.slice(3, 9)));
    expect(await bridge(hook(afterAgent, tag), env())).toMatchObject({ code: 0, stderr: '' });

    // the second turn on a model the price table does not have
    await bridge(hook(beforeAgent, tag), env());
    appendFileSync(transcript, text(lines.slice(9).map((l) => l.replace('"model":"gemini-2.5-flash"', '"model":"gemini-3.1-pro-preview"'))));
    await bridge(hook(afterAgent, tag), env());

    const found = await sessionByTag(tag);
    const turns = await get<TurnWithActivity[]>(`/api/sessions/${found.sid}/turns`);
    expect(turns.map((t) => t.status)).toEqual(['completed', 'completed']);
    expect(turns[0]!.usage).toEqual([expect.objectContaining(TURN1)]);
    expect(turns[0]!.usage[0]!.costUsd).toBeCloseTo(COST1, 9);
    expect(turns[1]!.usage).toEqual([{ model: 'gemini-3.1-pro-preview', ...TURN2, costUsd: null }]);
  });

  it('a legacy whole-JSON session file is not read: the turn completes without usage and the hook says why on stderr', async () => {
    const tag = 'gemini-legacy-0001';
    transcript = join(dir, 'session-2026-01-15T10-22-c0ffee00.json');
    writeFileSync(transcript, JSON.stringify({ sessionId: tag, projectHash: 'h', messages: [] }, null, 2));
    await bridge(hook(beforeAgent, tag), env());
    const stopped = await bridge(hook(afterAgent, tag), env());
    expect(stopped.code).toBe(0);
    expect(stopped.stderr).toMatch(/whole-JSON session file/);
    const found = await sessionByTag(tag);
    const turns = await get<TurnWithActivity[]>(`/api/sessions/${found.sid}/turns`);
    expect(turns.map((t) => [t.status, t.usage])).toEqual([['completed', []]]);
  });
});
