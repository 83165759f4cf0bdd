/**
 * `session-hub hook install`: the agent's hook configuration, built from the registry (every hook
 * event the flavor maps), and a merge into an existing settings file that keeps everything else.
 * Hooks are synchronous (the agent waits until the event is spooled, so it cannot kill the bridge
 * before) except the flavor's `hookConfig.asyncHooks`, written `"async": true`.
 */
import { hookNamesOf, type FlavorDeclaration, type HookAction } from '../../shared/flavors.js';
import { isObjectRecord } from '../../shared/protocol/json.js';
import { DEFAULT_APPROVAL_BOUND_MS } from './approval-hook.js';
import { wakeWaitMs } from './wake-hook.js';

type CommandHook = { type: 'command'; command: string; timeout?: number; async?: boolean; [flag: string]: unknown };
type Matcher = { matcher?: string; hooks: CommandHook[] };
export type HooksBlock = Record<string, Matcher[]>;

/** Seconds the agent may wait for a synchronous hook; the bridge itself gives up after about 2 s. */
const HOOK_TIMEOUT_S = 10;
const TOOL_ACTIONS: ReadonlySet<HookAction> = new Set(['tool-start', 'tool-use', 'tool-failure']);

/** The hook command: the bundled bridge run directly by node (fastest), or `<base> hook <flavor>`. */
export function hookCommandFor(flavor: string, options: { base?: string; bundle: string }): string {
  return options.base !== undefined ? `${options.base} hook ${flavor}` : `node ${JSON.stringify(options.bundle)} ${flavor}`;
}

/**
 * Seconds the agent waits for an approval hook: above the bridge's own bound, so the bridge always
 * answers (or gives up, printing nothing) before the agent kills it.
 */
export const APPROVAL_HOOK_TIMEOUT_S = Math.ceil(DEFAULT_APPROVAL_BOUND_MS / 1000) + 5;

/** The same command as a program and its arguments (Codex's notify, OpenCode's plugin spawn it without a shell). */
export function hookArgvFor(flavor: string, options: { base?: string; bundle: string }): string[] {
  return options.base !== undefined ? [...options.base.trim().split(/\s+/), 'hook', flavor] : ['node', options.bundle, flavor];
}

/**
 * The `hooks` block: one command entry per agent hook event the hub has a use for (mapped to an
 * action, setting or clearing attention, or waiting for an approval). Approval hooks are written
 * synchronous, with a timeout above the bridge's wait: the agent reads their answer. The flavor's
 * wake event gets the waking background hook beside its own (wakeHookFor).
 */
export function buildHooksBlock(flavor: FlavorDeclaration, command: string, env: NodeJS.ProcessEnv = process.env): HooksBlock {
  const block: HooksBlock = {};
  const approval = new Set(flavor.hookConfig?.approvalHooks ?? []);
  const background = new Set((flavor.hookConfig?.asyncHooks ?? []).filter((hookName) => !approval.has(hookName)));
  for (const hookName of hookNamesOf(flavor)) {
    const timeout = approval.has(hookName) ? APPROVAL_HOOK_TIMEOUT_S : HOOK_TIMEOUT_S;
    const hook: CommandHook = { type: 'command', command, timeout, ...(background.has(hookName) ? { async: true } : {}) };
    // tool hooks (and approvals, asked per tool) filter by tool name: match every tool
    const perTool = approval.has(hookName) || TOOL_ACTIONS.has(flavor.hooks[hookName] ?? 'notification');
    block[hookName] = [{ ...(perTool ? { matcher: '*' } : {}), hooks: [hook, ...wakeHookFor(flavor, hookName, command, env)] }, ...questionEntryFor(flavor, hookName, command)];
  }
  return block;
}

/**
 * For a hook that sees tool calls asking the person (the registry's `questionHooks`): a second,
 * synchronous entry matched to those tools only (`<command> --ask`), with the approval timeout. The
 * first entry keeps observing every tool in the background; no other tool call ever waits.
 */
function questionEntryFor(flavor: FlavorDeclaration, hookName: string, command: string): Matcher[] {
  const tools = flavor.hookConfig?.questionHooks?.[hookName]?.tools;
  if (!tools || tools.length === 0) return [];
  return [{ matcher: tools.join('|'), hooks: [{ type: 'command', command: `${command} --ask`, timeout: APPROVAL_HOOK_TIMEOUT_S }] }];
}

/**
 * Beside the wake event's own hook, the background waiter (`<command> --wake`, with the agent's
 * waking flag): it waits for a person's message and wakes the idle agent; the agent's timeout is
 * above that wait (`SESSION_HUB_WAKE_WAIT_MS` at install time, default the registry's; 0: no
 * waiter). In a headless run it exits at once (wake-hook.ts), so `claude -p` still ends promptly.
 */
function wakeHookFor(flavor: FlavorDeclaration, hookName: string, command: string, env: NodeJS.ProcessEnv): CommandHook[] {
  const wake = flavor.hookConfig?.wakeHook;
  if (!wake || wake.event !== hookName) return [];
  const waitMs = wakeWaitMs(env, wake.waitMs);
  if (waitMs === 0) return [];
  return [{ type: 'command', command: `${command} --wake`, timeout: Math.ceil(waitMs / 1000) + 30, [wake.flag]: true }];
}

/** A command this bridge installed for the flavor, by an earlier version or another path. */
export function isBridgeCommand(command: unknown, flavor: string): boolean {
  const call = typeof command === 'string' ? command.replace(/ --(wake|ask)$/, '') : command;
  return typeof call === 'string' && (call.endsWith(` hook ${flavor}`) || new RegExp(`hook-bridge\\.[cm]js"? ${flavor}$`).test(call));
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Merges the block into a settings document: other settings and other hooks stay; a bridge hook
 * installed before for the flavor (older command, no `async`) is replaced, so the agent never runs
 * two; an event already set up exactly so is left as it is: installing twice changes nothing.
 */
export function mergeHooks(settings: Record<string, unknown>, block: HooksBlock, flavor: string): { settings: Record<string, unknown>; added: string[] } {
  const hooks: Record<string, unknown> = isObjectRecord(settings.hooks) ? { ...settings.hooks } : {};
  const added: string[] = [];
  for (const [hookName, entries] of Object.entries(block)) {
    const existing = Array.isArray(hooks[hookName]) ? (hooks[hookName] as unknown[]) : [];
    const ours = existing.filter((entry) => isObjectRecord(entry) && Array.isArray(entry.hooks) && entry.hooks.some((h) => isObjectRecord(h) && isBridgeCommand(h.command, flavor)));
    if (sameJson(ours, entries)) continue;
    // drop our earlier hooks (and entries left with none), keep everything else in place
    const others = existing.flatMap((entry) => {
      if (!isObjectRecord(entry) || !Array.isArray(entry.hooks)) return [entry];
      const kept = entry.hooks.filter((h) => !(isObjectRecord(h) && isBridgeCommand(h.command, flavor)));
      if (kept.length === entry.hooks.length) return [entry];
      return kept.length === 0 ? [] : [{ ...entry, hooks: kept }];
    });
    hooks[hookName] = [...others, ...entries];
    added.push(hookName);
  }
  return { settings: { ...settings, hooks }, added };
}
