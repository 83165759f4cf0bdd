/**
 * `hook install` writes what Claude Code needs for a person's reply to wake an idle session
 * (fixtures/messages/claude-async-rewake.json): beside the Stop hook's own entry, the background
 * waiter `<command> --wake` with `asyncRewake: true` and a timeout above its wait. Installing twice
 * changes nothing; an older install (no waiter) is replaced, never doubled.
 */
import { describe, expect, it } from 'vitest';
import { getFlavor } from '../../shared/flavors.js';
import { buildHooksBlock, isBridgeCommand, mergeHooks } from '../../hub/hook/install.js';

const claude = getFlavor('claude')!;
const command = 'node "/opt/hub/dist/hook-bridge.cjs" claude';

describe('the asyncRewake waiter in the Stop entry', () => {
  it('is not written by default: `claude -p` would not exit while it waits', () => {
    expect(buildHooksBlock(claude, command, {}).Stop![0]!.hooks).toHaveLength(1);
  });

  it('is written beside the Stop hook when a wait is chosen, with the flag and a timeout above the wait', () => {
    const stop = buildHooksBlock(claude, command, { SESSION_HUB_WAKE_WAIT_MS: '600000' }).Stop!;
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

describe('the synchronous question entry in PreToolUse', () => {
  it('is a second entry matched to AskUserQuestion and ExitPlanMode only, running `--ask` with the approval timeout; the first entry still observes every tool', () => {
    const [observer, asking] = buildHooksBlock(claude, command, {}).PreToolUse!;
    expect(observer).toMatchObject({ matcher: '*', hooks: [{ command }] });
    expect(observer!.hooks).toHaveLength(1);
    expect(asking).toEqual({ matcher: 'AskUserQuestion|ExitPlanMode', hooks: [{ type: 'command', command: `${command} --ask`, timeout: 60 }] });
    expect(isBridgeCommand(`${command} --ask`, 'claude')).toBe(true);
  });
});
