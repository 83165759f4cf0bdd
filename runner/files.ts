/**
 * File access for the work of spec section 15: a directory's entries and a file's text, by a path
 * relative to a session's directory, never outside the runner's roots once every link is followed.
 * Reads are bounded (WORK_TEXT_CAP_BYTES of text, WORK_MAX_ENTRIES entries); nothing here writes.
 */
import { mkdir, open, readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { WORK_MAX_ENTRIES, WORK_TEXT_CAP_BYTES, type FilesResponse } from '../shared/protocol/work.js';
import { isUnder } from './roots.js';

export class FileRefused extends Error {
  constructor(
    readonly code: 'path_outside_roots' | 'not_found' | 'invalid_payload' | 'conflict',
    message: string,
  ) {
    super(message);
    this.name = 'FileRefused';
  }
}

/** Bytes looked at for a NUL, git's own test of a binary file. */
const BINARY_SNIFF_BYTES = 8000;

/**
 * `relativePath` under `base`, resolved (links followed): refused when it leaves the roots, or
 * does not exist. The path as asked is named in a refusal, never where a link leads.
 */
export async function resolveInside(base: string, relativePath: string, roots: readonly string[]): Promise<string> {
  const asked = resolve(base, relativePath);
  let real: string;
  try {
    real = await realpath(asked);
  } catch {
    throw new FileRefused('not_found', `${relativePath || '.'} does not exist in ${base}`);
  }
  if (!roots.some((root) => isUnder(real, root))) {
    throw new FileRefused('path_outside_roots', `${relativePath} is outside this machine's roots once its links are followed: nothing outside them is shown`);
  }
  return real;
}

export interface FileHead {
  size: number;
  /** The text, up to the cap; null for a binary file. */
  text: string | null;
  binary: boolean;
  truncated: boolean;
}

/** A file's first WORK_TEXT_CAP_BYTES (or `capBytes`), as text unless it holds a NUL byte. */
export async function readHead(path: string, capBytes = WORK_TEXT_CAP_BYTES): Promise<FileHead> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.alloc(Math.min(size, capBytes));
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const bytes = buffer.subarray(0, filled);
    const binary = bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
    return { size, text: binary ? null : bytes.toString('utf8'), binary, truncated: size > filled };
  } finally {
    await handle.close();
  }
}

/** A directory's entries (directories first, then by name), or a file's head; `relativePath` from the session's directory. */
export async function readPlace(base: string, relativePath: string, roots: readonly string[]): Promise<FilesResponse> {
  const real = await resolveInside(base, relativePath, roots);
  const shown = relative(base, real).split(sep).join('/') || '.';
  const info = await stat(real);
  if (info.isFile()) return { path: shown, kind: 'file', ...(await readHead(real)) };
  if (!info.isDirectory()) throw new FileRefused('not_found', `${relativePath} is neither a file nor a directory`);
  const names = (await readdir(real)).sort();
  const entries: Extract<FilesResponse, { kind: 'dir' }>['entries'] = [];
  for (const name of names.slice(0, WORK_MAX_ENTRIES)) {
    // a link is shown as what it points to; a broken one is left out
    const target = await stat(join(real, name)).catch(() => undefined);
    if (!target) continue;
    entries.push({ name, kind: target.isDirectory() ? 'dir' : 'file', size: target.isDirectory() ? 0 : target.size });
  }
  entries.sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'dir' ? -1 : 1));
  return { path: shown, kind: 'dir', entries, truncated: names.length > WORK_MAX_ENTRIES };
}

/** Line count of a text (a last line without its newline counts). */
export function lineCount(text: string): number {
  if (text === '') return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

/**
 * One new directory (a person's "Make folder" for a new session): its parent must exist under a
 * root, links followed; its name a plain name. Never recursive: a typo does not make a tree.
 */
export async function makeDirectory(path: string, roots: readonly string[]): Promise<string> {
  const name = basename(path);
  if (name === '' || name === '.' || name === '..' || name.includes('\0') || path.endsWith('/')) throw new FileRefused('invalid_payload', `path: ${path} does not end in a folder name to make`);
  let parent: string;
  try {
    parent = await realpath(dirname(path));
  } catch {
    throw new FileRefused('not_found', `${dirname(path)} does not exist on this machine: make its parent first`);
  }
  const made = join(parent, name);
  if (!roots.some((root) => isUnder(made, root) && made !== root)) {
    throw new FileRefused('path_outside_roots', `${path} is not under any root of this machine (${roots.join(', ')}), once its links are followed`);
  }
  try {
    await mkdir(made, { mode: 0o755 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new FileRefused('conflict', `${path} exists already`);
    throw new FileRefused('invalid_payload', `could not make ${path}: ${(error as Error).message}`);
  }
  return made;
}
