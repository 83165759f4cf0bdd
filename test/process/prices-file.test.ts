/**
 * `<data dir>/prices.json` (docs/usage.md): it adds and replaces prices (null removes one) for the
 * cost the hub computes; a file that is not JSON or not of the documented shape stops `session-hub
 * start` with one line naming the file and what is wrong, and the file is left as it was.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { connectRunner, startSession } from '../helpers/clients.js';
import { closeTestHubsAfterEach, startTestHub } from '../helpers/hub.js';
import { databaseUrlFor, releaseDatabaseOf } from '../helpers/test-store.js';

closeTestHubsAfterEach();
const scratch: string[] = [];
afterEach(async () => {
  for (const dir of scratch.splice(0)) {
    rmSync(dir, { recursive: true, force: true });
    await releaseDatabaseOf(dir);
  }
});

function dataDirWithPrices(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'session-hub-prices-'));
  scratch.push(dir);
  writeFileSync(join(dir, 'prices.json'), text);
  return dir;
}

describe('the price file', () => {
  it('adds a model, replaces a built-in price and removes one (null); the hub costs turns with it', async () => {
    const dataDir = dataDirWithPrices(JSON.stringify({
      models: {
        'my-local-model': { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
        'claude-sonnet-4-5': { input: 10, output: 10, cacheRead: 10, cacheWrite: 10 },
        'gpt-5-codex': null,
      },
    }));
    const hub = await startTestHub({ dataDir });
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const { sid } = await startSession(runner);
    expect(await runner.emitWithAck('prompt-submit', { sid, prompt: 'x' })).toMatchObject({ ok: true });
    const ack = await runner.emitWithAck('turn-stop', {
      sid,
      usage: [
        { model: 'my-local-model', inputTokens: 1_000_000, outputTokens: 1_000_000 },
        { model: 'claude-sonnet-4-5-20250929', inputTokens: 100_000, outputTokens: 0 },
        { model: 'gpt-5-codex', inputTokens: 5, outputTokens: 5 },
      ],
    });
    if (!ack.ok) throw new Error(ack.error.message);
    expect(Object.fromEntries(ack.turn!.usage.map((u) => [u.model, u.costUsd]))).toEqual({
      'my-local-model': 3,
      'claude-sonnet-4-5-20250929': 1,
      'gpt-5-codex': null,
    });
  });

  const refused: [string, string, RegExp][] = [
    ['not JSON', '{ "models": { "a": ', /the price file .*prices\.json is not valid JSON/],
    ['a comment', '// my prices\n{ "models": {} }', /the price file .*prices\.json is not valid JSON/],
    ['a negative price', JSON.stringify({ models: { m: { input: -1, output: 1, cacheRead: 0, cacheWrite: 0 } } }), /refused: models\.m\.input: must not be negative/],
    ['a price as text', JSON.stringify({ models: { m: { input: '3', output: 1, cacheRead: 0, cacheWrite: 0 } } }), /refused: models\.m\.input: must be a price in USD per million tokens/],
    ['a missing kind', JSON.stringify({ models: { m: { input: 1, output: 1, cacheRead: 0 } } }), /refused: models\.m\.cacheWrite: /],
    ['a misspelt key', JSON.stringify({ model: {} }), /refused: /],
  ];
  for (const [what, text, message] of refused) {
    it(`refuses ${what} at start: one line naming the file and the fault, exit 1, the file untouched`, async () => {
      const dataDir = dataDirWithPrices(text);
      const databaseUrl = await databaseUrlFor(dataDir);
      const result = await runCli(['start'], {
        env: { SESSION_HUB_DATA: dataDir, SESSION_HUB_PORT: '0', ...(databaseUrl === undefined ? {} : { SESSION_HUB_DATABASE_URL: databaseUrl }) },
      });
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/^session-hub: /);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).toContain('docs/usage.md');
      expect(readFileSync(join(dataDir, 'prices.json'), 'utf8')).toBe(text);
    });
  }
});
