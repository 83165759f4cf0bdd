/**
 * One spool per hub and token: an event spooled for a hub (and the token it was sent with) goes
 * only there, whatever the next hook names. Each target has its own directory in the spool dir,
 * `hub-<key>/`, where key is a 64-bit FNV-1a hash of the hub's origin and the token: the token
 * itself is never written to disk (docs/security.md). `target.json` there names the hub's URL,
 * for `hook status` and `hook retry-refused`. Part of the bridge bundle: no node:crypto (its load
 * costs each hook call a few ms; the key needs to tell targets apart, not to be a secret).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface HubTarget {
  url: string;
  token: string;
}

/** What `target.json` holds: never the token. */
export interface TargetFile {
  url: string;
  key: string;
}

/** The hub's origin: `http://h:1/` and `http://h:1` are one hub (the bridge posts to `<origin>/api/hooks`). */
export function hubOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** FNV-1a, 64 bits, as 16 hex digits (two 32-bit halves: no BigInt on the hook path). */
export function fnv1a64(text: string): string {
  let h1 = 0x84222325;
  let h0 = 0xcbf29ce4;
  // 64-bit FNV prime 0x100000001b3 = 2^40 + 0x1b3, multiplied in 16-bit limbs
  let a0 = h1 & 0xffff;
  let a1 = h1 >>> 16;
  let a2 = h0 & 0xffff;
  let a3 = h0 >>> 16;
  const bytes = Buffer.from(text, 'utf8');
  for (const byte of bytes) {
    a0 ^= byte;
    const t0 = a0 * 0x1b3;
    const t1 = a1 * 0x1b3;
    const t2 = a2 * 0x1b3 + (a0 << 8);
    const t3 = a3 * 0x1b3 + (a1 << 8);
    const c1 = t1 + (t0 >>> 16);
    const c2 = t2 + (c1 >>> 16);
    a0 = t0 & 0xffff;
    a1 = c1 & 0xffff;
    a2 = c2 & 0xffff;
    a3 = (t3 + (c2 >>> 16)) & 0xffff;
  }
  h0 = (a3 << 16) | a2;
  h1 = (a1 << 16) | a0;
  return (h0 >>> 0).toString(16).padStart(8, '0') + (h1 >>> 0).toString(16).padStart(8, '0');
}

export function targetKey(target: HubTarget): string {
  return fnv1a64(`${hubOrigin(target.url)}\n${target.token}`);
}

/** The directory of a target's spool (created with its `target.json` by `ensureTargetDir`). */
export function targetDir(spoolDir: string, target: HubTarget): string {
  return join(spoolDir, `hub-${targetKey(target)}`);
}

/** Events written while SESSION_HUB_URL or SESSION_HUB_TOKEN was unset wait here, for `hook retry-refused`. */
export function unsetDir(spoolDir: string): string {
  return join(spoolDir, 'hub-unset');
}

export function targetFilePath(dir: string): string {
  return join(dir, 'target.json');
}

export function readTargetFile(dir: string): TargetFile | undefined {
  try {
    return JSON.parse(readFileSync(targetFilePath(dir), 'utf8')) as TargetFile;
  } catch {
    return undefined;
  }
}

/** The target directories in a spool dir (the spool dir itself too when it holds files of an earlier version, which named no hub). */
export function targetDirs(spoolDir: string): string[] {
  if (!existsSync(spoolDir)) return [];
  const dirs = readdirSync(spoolDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name.startsWith('hub-'))
    .map((entry) => join(spoolDir, entry.name));
  return [spoolDir, ...dirs.sort()];
}

export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
}
