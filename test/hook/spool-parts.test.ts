import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TurnWithActivity } from '../../shared/protocol/session.js';
import type { TestHub } from '../helpers/hub.js';
import { fixture, hubSpool, sendHooks, useBridgeHub } from './run-cli.js';

let hub: TestHub;
let spoolDir: string;
const bridge = useBridgeHub((started) => ({ hub, spoolDir } = started));
const { get, sessionByTag } = bridge;

// a short budget: a hook that finds the spool locked gives up after half of it
const env = () => ({ ...bridge.env(), SESSION_HUB_HOOK_BUDGET_MS: '800' });
const claude = fixture('claude-session.json');
const [start, prompt, , , , stop] = claude as [Record<string, unknown>, Record<string, unknown>, unknown, unknown, unknown, Record<string, unknown>];
const tag = start.session_id as string;

describe('hook events queued in part files (spool lock busy)', () => {
  it('a Stop queued in a part file still ends the turn: the same prompt typed in the next turn opens a new turn', async () => {
    const same = { ...prompt, prompt: 'continue' };
    await sendHooks('claude', [start, same], env());

    // another, live, process holds the spool (a fresh lock with a live pid): this Stop goes to a part file
    const dir = hubSpool(env());
    const lock = join(dir, 'spool-claude.lock');
    writeFileSync(lock, String(process.pid));
    const [queued] = await sendHooks('claude', [{ ...stop, last_assistant_message: 'first' }], env());
    expect(queued!.code).toBe(0);
    expect(readdirSync(dir).filter((name) => name.includes('.part-'))).toHaveLength(1);
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
