/**
 * `hook install` writes what Claude Code needs for a person's reply to wake an idle session
 * (fixtures/messages/claude-async-rewake.json): beside the Stop hook's own entry, the background
 * waiter `<command> --wake` with `asyncRewake: true` and a timeout above its wait, by default (0:
 * none); headless runs are told apart by the registry's variable. Installing twice
 * changes nothing; an older install (no waiter) is replaced, never doubled.
 */
import { describe, expect, it } from 'vitest';
import { getFlavor } from '../../shared/flavors.js';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildHooksBlock, isBridgeCommand, mergeHooks } from '../../hub/hook/install.js';
import { runsHeadless } from '../../hub/hook/wake-hook.js';
import { runCli } from '../helpers/cli.js';

const claude = getFlavor('claude')!;
const command = 'node "/opt/hub/dist/hook-bridge.cjs" claude';

describe('the asyncRewake waiter in the Stop entry', () => {
  it('is written by default beside the Stop hook, with the flag and a timeout above the registry\'s wait (10 min)', () => {
    const stop = buildHooksBlock(claude, command, {}).Stop!;
    expect(stop).toHaveLength(1);
    const [own, waiter] = stop[0]!.hooks;
    expect(own!.command).toBe(command);
    expect(waiter).toEqual({ type: 'command', command: `${command} --wake`, timeout: 630, asyncRewake: true });
  });

  it('SESSION_HUB_WAKE_WAIT_MS at install time sets the timeout; other hooks get no waiter', () => {
    const block = buildHooksBlock(claude, command, { SESSION_HUB_WAKE_WAIT_MS: '120000' });
    expect(block.Stop![0]!.hooks[1]).toMatchObject({ timeout: 150, asyncRewake: true });
    for (const [name, entries] of Object.entries(block)) if (name !== 'Stop') expect(entries[0]!.hooks).toHaveLength(1);
  });

  it('SESSION_HUB_WAKE_WAIT_MS=0 at install time: no waiter; a value that is not a whole number of ms: an error naming it', () => {
    expect(buildHooksBlock(claude, command, { SESSION_HUB_WAKE_WAIT_MS: '0' }).Stop![0]!.hooks).toHaveLength(1);
    for (const bad of ['-5', '10m', '1.5']) {
      expect(() => buildHooksBlock(claude, command, { SESSION_HUB_WAKE_WAIT_MS: bad })).toThrow(`SESSION_HUB_WAKE_WAIT_MS must be a whole number of milliseconds (0: no waiter), not "${bad}"`);
    }
  });

  it('`hook install claude` with a bad SESSION_HUB_WAKE_WAIT_MS: exit 2, the variable named, nothing written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'session-hub-wake-install-'));
    try {
      const result = await runCli(['hook', 'install', 'claude', '--write'], { cwd: dir, env: { SESSION_HUB_WAKE_WAIT_MS: 'soon' } });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('SESSION_HUB_WAKE_WAIT_MS must be a whole number of milliseconds (0: no waiter), not "soon"');
      expect(existsSync(join(dir, '.claude', 'settings.json'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the waiter counts as ours: installing twice changes nothing, an older install is replaced', () => {
    expect(isBridgeCommand(`${command} --wake`, 'claude')).toBe(true);
    const block = buildHooksBlock(claude, command, { SESSION_HUB_WAKE_WAIT_MS: '600000' });
    const once = mergeHooks({}, block, 'claude').settings;
    expect(mergeHooks(once, block, 'claude').added).toEqual([]);
    const older = { hooks: { Stop: [{ hooks: [{ type: 'command', command, async: true }] }, { hooks: [{ type: 'command', command: 'say done' }] }] } };
    const merged = mergeHooks(older, block, 'claude').settings as { hooks: { Stop: { hooks: { command: string }[] }[] } };
    expect(merged.hooks.Stop.flatMap((entry) => entry.hooks.map((h) => h.command))).toEqual(['say done', command, `${command} --wake`]);
  });
});

describe('the headless check (the registry\'s wakeHook.headless)', () => {
  // Claude Code 2.1.197 sets CLAUDE_CODE_ENTRYPOINT "sdk-cli" under -p, "cli" in a terminal; its SDKs
  // spawn it with "sdk-ts" / "sdk-py" (test/agents/claude-messages.test.ts sees the first two in its hooks)
  it('headless for the declared values, not in a terminal, not when unset', () => {
    for (const value of ['sdk-cli', 'sdk-ts', 'sdk-py']) expect(runsHeadless('claude', { CLAUDE_CODE_ENTRYPOINT: value })).toBe(true);
    for (const value of ['cli', 'claude-vscode', '']) expect(runsHeadless('claude', { CLAUDE_CODE_ENTRYPOINT: value })).toBe(false);
    expect(runsHeadless('claude', {})).toBe(false);
  });

  it('never for a flavor without a waking hook, whatever its environment', () => {
    expect(runsHeadless('cursor', { CLAUDE_CODE_ENTRYPOINT: 'sdk-cli' })).toBe(false);
    expect(runsHeadless('no-such-flavor', { CLAUDE_CODE_ENTRYPOINT: 'sdk-cli' })).toBe(false);
  });
});

describe('the synchronous question entry in PreToolUse', () => {
  it('is a second entry matched to AskUserQuestion and ExitPlanMode only, running `--ask` with the approval timeout; the first entry still observes every tool', () => {
    const [observer, asking] = buildHooksBlock(claude, command, {}).PreToolUse!;
    expect(observer).toMatchObject({ matcher: '*', hooks: [{ command }] });
    expect(observer!.hooks).toHaveLength(1);
    expect(asking).toEqual({ matcher: 'AskUserQuestion|ExitPlanMode', hooks: [{ type: 'command', command: `${command} --ask`, timeout: 3608 }] });
    expect(isBridgeCommand(`${command} --ask`, 'claude')).toBe(true);
  });
});
