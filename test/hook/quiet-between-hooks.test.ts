/**
 * The real hub process with a short run grace and the compiled hook CLI: a hook-driven Claude session
 * holds no socket between hook events, and a quiet spell longer than the grace must not end it
 * (the bridge's runs are detached; see docs/hooks.md).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TurnWithActivity } from '../../shared/protocol/session.js';
import { spawnHub, stopHubsAfterEach, type HubProcess } from '../helpers/hub-process.js';
import { fixture, sendHooks, hubReader, removeSpool } from './run-cli.js';

const GRACE_MS = 300;
const SWEEP_MS = 100;
/** A hook is a sign of life: the session shows active until this long after its last hook. */
const ALIVE_MS = 500;

let hub: HubProcess;
let spoolDir: string;
beforeEach(async () => {
  hub = await spawnHub({ env: { SESSION_HUB_RUN_GRACE_MS: String(GRACE_MS), SESSION_HUB_SWEEP_MS: String(SWEEP_MS), SESSION_HUB_ALIVE_TIMEOUT_MS: String(ALIVE_MS) } });
  spoolDir = mkdtempSync(join(tmpdir(), 'session-hub-spool-'));
});
stopHubsAfterEach();
afterEach(() => removeSpool(spoolDir));

const env = () => ({ SESSION_HUB_URL: hub.url, SESSION_HUB_TOKEN: hub.tokens.runner, SESSION_HUB_SPOOL_DIR: spoolDir });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const { get, sessionByTag } = hubReader(() => hub);

describe('a hook-driven session while the user is quiet', () => {
  it('stays running across a pause longer than the run grace, with its run and turns intact', async () => {
    const claude = fixture('claude-session.json');
    const tag = claude[0]!.session_id as string;

    // SessionStart .. Stop of the first turn: every hook process has exited since
    for (const result of await sendHooks('claude', claude.slice(0, 6), env())) expect(result).toMatchObject({ code: 0, stdout: '' });
    const before = await sessionByTag(tag);
    expect(before.lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });

    // no socket on the session for several graces and many sweeps (and past the alive timeout)
    await sleep(Math.max(GRACE_MS * 4, ALIVE_MS) + SWEEP_MS * 2);
    const quiet = await sessionByTag(tag);
    expect(quiet.lifecycle).toEqual(before.lifecycle);
    expect(quiet.presence.active).toBe(false);

    // the next prompt continues the same run: the lifecycle was never ended and reopened
    await sendHooks('claude', claude.slice(6, 8), env());
    const after = await sessionByTag(tag);
    expect(after.lifecycle).toMatchObject({ state: 'running', since: before.lifecycle.since, reason: before.lifecycle.reason, lastRun: { status: 'running' } });
    const turns = await get<TurnWithActivity[]>(`/api/sessions/${after.sid}/turns`);
    expect(turns.map((t) => [t.prompt, t.status])).toEqual([
      ['Add a --verbose flag to the CLI', 'completed'],
      ['Now document it in the README', 'completed'],
    ]);
  });
});
