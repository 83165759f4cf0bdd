/**
 * The agent session's taker key on this machine (docs/messages.md, "Who takes a message"): a random
 * secret per agent session, in a file of the hub's spool dir, made by the session's first hook
 * process that needs it (exclusive create: two first hooks of one session end with the same key)
 * and read by every later one, the background waiter and the drainer. Every event of the session
 * carries it: the hub registers the first key it sees for a session, and hands the session's
 * messages only to a process presenting that key. Part of the bridge bundle (node built-ins only).
 */
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Taker } from '../../shared/protocol/messages.js';
import { fnv1a64 } from './spool-target.js';

/** How the process names itself on the page (who took a message). */
export function hookProcessName(): string {
  return `hook pid ${process.pid} on ${hostname()}`.slice(0, 128);
}

function newKey(): string {
  // Web Crypto is global in Node 20: no node:crypto load on the hook path
  return Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(24))).toString('base64url');
}

const keyFile = (hubSpoolDir: string, tag: string) => join(hubSpoolDir, 'takers', `${fnv1a64(tag)}.json`);

function readKey(file: string, tag: string): string | undefined {
  const stored = JSON.parse(readFileSync(file, 'utf8')) as { tag?: unknown; key?: unknown };
  return stored.tag === tag && typeof stored.key === 'string' ? stored.key : undefined;
}

/**
 * The taker of agent session `tag` under this hub's spool dir; undefined when no key can be read or
 * made (a spool dir that cannot be written: the session's messages then wait for a hook that can).
 */
export function takerOf(hubSpoolDir: string, tag: string): Taker | undefined {
  const file = keyFile(hubSpoolDir, tag);
  try {
    const key = readKey(file, tag);
    return key === undefined ? undefined : { key, process: hookProcessName() };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
  }
  const draft = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(join(hubSpoolDir, 'takers'), { recursive: true, mode: 0o700 });
    writeFileSync(draft, JSON.stringify({ tag, key: newKey() }), { mode: 0o600 });
    // a link appears whole or not at all: a reader never sees a half-written key
    linkSync(draft, file);
  } catch (error) {
    // another hook of the session made it first: its key is the one
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  } finally {
    rmSync(draft, { force: true });
  }
  try {
    const key = readKey(file, tag);
    return key === undefined ? undefined : { key, process: hookProcessName() };
  } catch {
    return undefined;
  }
}
