/**
 * `session-hub hook install --write`: the new text of an agent's hook configuration file, merged
 * with what the user has, by the flavor's declared format (shared/flavors.ts `hookConfig.format`).
 * Everything of the user's stays; this bridge's earlier entries for the flavor are replaced, never
 * doubled; a file this code cannot read safely (invalid JSON or TOML, JSON with comments, a notify
 * program of the user's) is refused with a message naming why, and left as it is.
 */
import { parse as parseToml } from 'smol-toml';
import type { FlavorDeclaration } from '../../shared/flavors.js';
import { isObjectRecord } from '../../shared/protocol/json.js';
import { buildHooksBlock, isBridgeCommand, mergeHooks } from './install.js';
import { opencodePlugin, PLUGIN_MARKER } from './opencode-plugin.js';

/** A file install will not touch, and why. */
export class InstallRefused extends Error {}

export interface Merged {
  /** The file's new text (the old text when nothing changes). */
  text: string;
  /** What was added or replaced (empty: already set up). */
  added: string[];
}

/** The hook command twice: as one shell line, and as a program with its arguments (for notify). */
export interface HookCommand {
  line: string;
  argv: readonly string[];
}

function parseJsonObject(text: string, file: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const comments = /^\s*\/\/|\/\*/m.test(text) ? ' (it has comments, which this install cannot keep)' : '';
    throw new InstallRefused(`${file} is not plain JSON${comments}: ${(error as Error).message}. Nothing was changed; fix the file or add the hooks by hand (run without --write to see them)`);
  }
  if (!isObjectRecord(parsed)) throw new InstallRefused(`${file} does not hold a JSON object. Nothing was changed`);
  return parsed;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Claude Code / Gemini CLI settings: the `hooks` block merged (hub/hook/install.ts). */
function settingsJson(flavor: FlavorDeclaration, command: HookCommand, existing: string | undefined, file: string): Merged {
  const settings = existing === undefined ? {} : parseJsonObject(existing, file);
  const merged = mergeHooks(settings, buildHooksBlock(flavor, command.line), flavor.id);
  return merged.added.length === 0 ? { text: existing ?? '', added: [] } : { text: json(merged.settings), added: merged.added };
}

/** Cursor's hooks.json: `{ version: 1, hooks: { <event>: [{ command }] } }`. */
function hooksJson(flavor: FlavorDeclaration, command: HookCommand, existing: string | undefined, file: string): Merged {
  const settings = existing === undefined ? {} : parseJsonObject(existing, file);
  const hooks: Record<string, unknown> = isObjectRecord(settings.hooks) ? { ...settings.hooks } : {};
  const added: string[] = [];
  for (const event of Object.keys(flavor.hooks)) {
    const entries = Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : [];
    const ours = (entry: unknown) => isObjectRecord(entry) && isBridgeCommand(entry.command, flavor.id);
    const kept = entries.filter((entry) => !ours(entry));
    if (entries.filter(ours).length === 1 && entries.some((e) => isObjectRecord(e) && e.command === command.line)) continue;
    hooks[event] = [...kept, { command: command.line }];
    added.push(event);
  }
  if (added.length === 0) return { text: existing ?? '', added };
  return { text: json({ ...settings, version: settings.version ?? 1, hooks }), added };
}

const tomlString = (value: string) => JSON.stringify(value); // a JSON string is a TOML basic string
const tomlArray = (values: readonly string[]) => `[${values.map(tomlString).join(', ')}]`;

/**
 * Codex's config.toml: the top-level `notify` entry, written into the user's text as one line (the
 * rest of the file, comments included, stays byte for byte). The TOML is parsed only to check it.
 */
function notifyToml(flavor: FlavorDeclaration, command: HookCommand, existing: string | undefined, file: string): Merged {
  const text = existing ?? '';
  let config: Record<string, unknown>;
  try {
    config = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    throw new InstallRefused(`${file} is not valid TOML: ${(error as Error).message.split('\n')[0]}. Nothing was changed`);
  }
  const line = `notify = ${tomlArray(command.argv)}`;
  const held = config.notify;
  if (held !== undefined) {
    const heldArgv = Array.isArray(held) ? held.map(String) : [String(held)];
    if (!isBridgeCommand(heldArgv.join(' '), flavor.id)) {
      throw new InstallRefused(
        `${file} already has notify = ${tomlArray(heldArgv)}; Codex runs one notify program, so this install does not replace yours. Nothing was changed; to use the bridge, set by hand: ${line}`,
      );
    }
    if (heldArgv.join('\u0000') === command.argv.join('\u0000')) return { text, added: [] };
    const replaced = text.replace(/^notify\s*=\s*\[[^\]]*\]/m, line);
    if (replaced === text) throw new InstallRefused(`${file}: the bridge's notify entry is not written as one array; replace it by hand with: ${line}`);
    return { text: replaced, added: ['notify'] };
  }
  // top-level keys must come before the first table
  const table = /^[ \t]*\[/m.exec(text);
  const comment = `# session-hub: Codex runs this with each notification (session-hub hook install ${flavor.id})`;
  if (table === null) return { text: `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${comment}\n${line}\n`, added: ['notify'] };
  return { text: `${text.slice(0, table.index)}${comment}\n${line}\n\n${text.slice(table.index)}`, added: ['notify'] };
}

/** OpenCode: the plugin file is ours entirely; a file of the same name without our marker is the user's. */
function pluginJs(flavor: FlavorDeclaration, command: HookCommand, existing: string | undefined, file: string): Merged {
  const text = opencodePlugin(flavor, command.argv);
  if (existing !== undefined && !existing.includes(PLUGIN_MARKER)) throw new InstallRefused(`${file} exists and was not written by session-hub. Nothing was changed; pass --file to write the plugin elsewhere`);
  return existing === text ? { text, added: [] } : { text, added: ['plugin'] };
}

const FORMATS = { 'settings-json': settingsJson, 'hooks-json': hooksJson, 'notify-toml': notifyToml, 'plugin-js': pluginJs } as const;

/** The file's new text for the flavor's format; throws InstallRefused for a file it must not touch. */
export function mergeConfig(flavor: FlavorDeclaration, command: HookCommand, existing: string | undefined, file: string): Merged {
  const format = flavor.hookConfig?.format;
  if (format === undefined) throw new InstallRefused(`session-hub does not know how to wire ${flavor.displayName}'s hooks`);
  return FORMATS[format](flavor, command, existing, file);
}

/** What install prints without --write: the configuration as the agent's file would hold it. */
export function configPreview(flavor: FlavorDeclaration, command: HookCommand): string {
  return mergeConfig(flavor, command, undefined, flavor.hookConfig?.file ?? '').text;
}
