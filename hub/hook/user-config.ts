/**
 * The user's hub and token, kept by `session-hub login` in `$XDG_CONFIG_HOME/session-hub/config.json`
 * (default `~/.config/...`, mode 0600: it holds a token), so the installed hooks need no shell
 * exports. The hook bridge reads it when SESSION_HUB_URL or SESSION_HUB_TOKEN is unset; a variable
 * that is set wins. Node built-ins only: the bridge bundle loads this.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface UserConfig {
  url: string;
  token: string;
}

/** Where the user's config lives. */
export function userConfigPath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME?.trim() ? env.XDG_CONFIG_HOME : join(env.HOME?.trim() ? env.HOME : homedir(), '.config');
  return join(base, 'session-hub', 'config.json');
}

/** The kept hub and token; undefined when there is no such file or it is not ours to read. */
export function readUserConfig(env: NodeJS.ProcessEnv): UserConfig | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(userConfigPath(env), 'utf8'));
  } catch {
    return undefined;
  }
  const { url, token } = (parsed ?? {}) as Record<string, unknown>;
  return typeof url === 'string' && typeof token === 'string' && url !== '' && token !== '' ? { url, token } : undefined;
}

/** Writes the config, readable by its owner only (the directory too), in one rename. */
export function writeUserConfig(env: NodeJS.ProcessEnv, config: UserConfig): string {
  const path = userConfigPath(env);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600); // a umask cannot widen it, but an existing file's mode would stay: set it
  renameSync(tmp, path);
  return path;
}

/** Fills SESSION_HUB_URL and SESSION_HUB_TOKEN from the user's config where unset (in place: drainers it spawns inherit them). */
export function applyUserConfig(env: NodeJS.ProcessEnv): void {
  if (env.SESSION_HUB_URL && env.SESSION_HUB_TOKEN) return;
  const config = readUserConfig(env);
  if (!config) return;
  env.SESSION_HUB_URL ||= config.url;
  env.SESSION_HUB_TOKEN ||= config.token;
}
