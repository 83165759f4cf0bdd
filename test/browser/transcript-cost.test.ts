/**
 * Issue 14's end to end: a Claude Code session driven by real `session-hub hook claude` processes,
 * whose `transcript_path` names a transcript written as the agent writes it (the fixture is cut from
 * a real one; its first line names the source). The bridge reads the turn's usage at Stop, the hub
 * prices it, and the page shows the tokens and the cost in the list and in the session's detail.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestHub } from '../helpers/hub.js';
import { fixture, sendHooks } from '../hook/run-cli.js';
import { signIn, textOf, useDashboardPages, waitForText } from './browser.js';

let hub: TestHub;
let page: Page;
let dir: string;

useDashboardPages({
  suite: (started) => ({ hub } = started),
  test: (opened) => ({ page } = opened),
});
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'session-hub-transcript-cost-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lines = readFileSync(resolve(import.meta.dirname, '..', 'hook', 'fixtures', 'claude-transcript.jsonl'), 'utf8').trimEnd().split('\n');
const text = (lineList: string[]) => lineList.map((l) => `${l}\n`).join('');
/** The fixture's two claude-opus-4-6 messages, priced as hub/usage/price-table.ts prices them (per million: $5, $25, $0.50, $6.25). */
const TOKENS = { input: 3 + 1, output: 9 + 81, cacheRead: 11442 + 26447, cacheWrite: 15005 + 1598 };
const COST = (TOKENS.input * 5 + TOKENS.output * 25 + TOKENS.cacheRead * 0.5 + TOKENS.cacheWrite * 6.25) / 1e6;

const CLAUDE = fixture('claude-session.json');
const byHook = (name: string) => CLAUDE.find((p) => p.hook_event_name === name)!;

describe('tokens and cost of a hook-driven Claude Code session', () => {
  it('the list and the detail show the cost the transcript adds up to, and the tokens per model', async () => {
    const tag = `transcript-cost-${Date.now()}`;
    const transcript = join(dir, `${tag}.jsonl`);
    const env = { SESSION_HUB_URL: hub.url, SESSION_HUB_TOKEN: hub.tokens.runner, SESSION_HUB_SPOOL_DIR: dir };
    const hook = async (payload: Record<string, unknown>) => {
      const [result] = await sendHooks('claude', [{ ...payload, session_id: tag, transcript_path: transcript }], env);
      expect(result, result!.stderr).toMatchObject({ code: 0 });
    };
    writeFileSync(transcript, text(lines.slice(0, 3)));
    await hook(byHook('SessionStart'));
    appendFileSync(transcript, text([lines[3]!]));
    await hook(byHook('UserPromptSubmit'));
    appendFileSync(transcript, text(lines.slice(4)));
    await hook(byHook('Stop'));

    const res = await fetch(`${hub.url}/api/sessions?limit=500`, { headers: { authorization: `Bearer ${hub.tokens.dashboard}` } });
    const sid = ((await res.json()) as { sessions: { sid: string; tag: string }[] }).sessions.find((s) => s.tag === tag)!.sid;
    const cost = `$${COST.toFixed(2)}`;

    await signIn(page, hub.url, hub.tokens.dashboard);
    const row = `#sessions li[data-sid="${sid}"]`;
    await waitForText(page, `${row} .cost`, cost);
    await page.locator(`${row} a.title`).first().click();
    const model = '#session-usage tr[data-model="claude-opus-4-6"]';
    await page.waitForSelector(model);
    expect(await textOf(page, `${model} .model-cost`)).toBe(cost);
    const cells = await page.locator(`${model} td`).allTextContents();
    expect(cells.slice(0, 3)).toEqual(['claude-opus-4-6', `${TOKENS.input} tokens`, `${TOKENS.output} tokens`]);
    expect(Number(await page.locator('#session-usage .cost').getAttribute('data-cost'))).toBeCloseTo(COST, 9);
  }, 60_000);
});
