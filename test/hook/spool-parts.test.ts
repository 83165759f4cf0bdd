import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TurnWithActivity } from '../../shared/protocol/session.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { fixture, hubReader, sendHooks } from './run-cli.js';

let hub: TestHub;
let spoolDir: string;
beforeEach(async () => {
  hub = await startTestHub();
  spoolDir = mkdtempSync(join(tmpdir(), 'session-hub-spool-'));
});
afterEach(async () => {
  await hub.close();
  rmSync(spoolDir, { recursive: true, force: true });
});

// a short budget: a hook that finds the spool locked gives up after half of it
const env = () => ({ SESSION_HUB_URL: hub.url, SESSION_HUB_TOKEN: hub.tokens.runner, SESSION_HUB_SPOOL_DIR: spoolDir, SESSION_HUB_HOOK_BUDGET_MS: '800' });
const { get, sessionByTag } = hubReader(() => hub);

const claude = fixture('claude-session.json');
const [start, prompt, , , , stop] = claude as [Record<string, unknown>, Record<string, unknown>, unknown, unknown, unknown, Record<string, unknown>];
const tag = start.session_id as string;

describe('hook events queued in part files (spool lock busy)', () => {
  it('a Stop queued in a part file still ends the turn: the same prompt typed in the next turn opens a new turn', async () => {
    const same = { ...prompt, prompt: 'continue' };
    await sendHooks('claude', [start, same], env());

    // another, live, process holds the spool (a fresh lock with a live pid): this Stop goes to a part file
    const lock = join(spoolDir, 'spool-claude.lock');
    writeFileSync(lock, String(process.pid));
    const [queued] = await sendHooks('claude', [{ ...stop, last_assistant_message: 'first' }], env());
    expect(queued!.code).toBe(0);
    expect(readdirSync(spoolDir).filter((name) => name.includes('.part-'))).toHaveLength(1);
    rmSync(lock);

    // the user types the same words again in the next turn
    await sendHooks('claude', [same, { ...stop, last_assistant_message: 'second' }], env());
    const session = await sessionByTag(tag);
    const turns = await get<TurnWithActivity[]>(`/api/sessions/${session.sid}/turns`);
    expect(turns.map((t) => [t.prompt, t.status, t.response])).toEqual([
      ['continue', 'completed', 'first'],
      ['continue', 'completed', 'second'],
    ]);
  });
});
