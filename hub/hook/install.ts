/**
 * `session-hub hook install`: the agent's hook configuration, built from the registry (every hook
 * event the flavor maps), and a merge into an existing settings file that keeps everything else.
 */
import type { FlavorDeclaration } from '../../shared/flavors.js';
import { isObjectRecord } from '../../shared/protocol/json.js';

type CommandHook = { type: 'command'; command: string; timeout?: number };
type Matcher = { matcher?: string; hooks: CommandHook[] };
export type HooksBlock = Record<string, Matcher[]>;

/** Seconds the agent may wait for the hook; the bridge itself gives up after about 2 s. */
const HOOK_TIMEOUT_S = 10;

export function hookCommandFor(flavor: string, base = 'session-hub'): string {
  return `${base} hook ${flavor}`;
}

/** The `hooks` block: one command entry per agent hook event the flavor maps to a hub event. */
export function buildHooksBlock(flavor: FlavorDeclaration, command: string): HooksBlock {
  const block: HooksBlock = {};
  for (const [hookName, action] of Object.entries(flavor.hooks)) {
    // tool hooks filter by tool name: match every tool
    block[hookName] = [{ ...(action === 'tool-use' ? { matcher: '*' } : {}), hooks: [{ type: 'command', command, timeout: HOOK_TIMEOUT_S }] }];
  }
  return block;
}

function hasCommand(entries: unknown[], command: string): boolean {
  return entries.some((entry) => isObjectRecord(entry) && Array.isArray(entry.hooks) && entry.hooks.some((h) => isObjectRecord(h) && h.command === command));
}

/**
 * Merges the block into a settings document: other settings and other hooks stay; an event that
 * already runs the same command is left as it is, so installing twice changes nothing.
 */
export function mergeHooks(settings: Record<string, unknown>, block: HooksBlock): { settings: Record<string, unknown>; added: string[] } {
  const hooks: Record<string, unknown> = isObjectRecord(settings.hooks) ? { ...settings.hooks } : {};
  const added: string[] = [];
  for (const [hookName, entries] of Object.entries(block)) {
    const existing = Array.isArray(hooks[hookName]) ? (hooks[hookName] as unknown[]) : [];
    const command = entries[0]!.hooks[0]!.command;
    if (hasCommand(existing, command)) continue;
    hooks[hookName] = [...existing, ...entries];
    added.push(hookName);
  }
  return { settings: { ...settings, hooks }, added };
}
