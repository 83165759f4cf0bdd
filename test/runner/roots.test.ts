/**
 * The runner's roots (runner/roots.ts): a path is resolved, symlinks included, before it is
 * compared; a refusal names the path as asked and never the target of a link in it (issue 45.11:
 * the page learnt where a link inside a root pointed outside it). Real directories and links.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveRoots, resolveUnderRoots } from '../../runner/roots.js';

let base: string;
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('resolveUnderRoots', () => {
  it('refuses a link out of the root naming the path asked, not its target; follows one that stays inside', () => {
    base = mkdtempSync(join(tmpdir(), 'session-hub-roots-'));
    const root = join(base, 'code');
    const secret = join(base, 'private-elsewhere');
    mkdirSync(join(root, 'api'), { recursive: true });
    mkdirSync(secret);
    symlinkSync(secret, join(root, 'escape'));
    symlinkSync(join(root, 'api'), join(root, 'alias'));
    const roots = resolveRoots([root]);

    const refused = resolveUnderRoots(join(root, 'escape'), roots);
    expect(refused).toMatchObject({ ok: false, code: 'path_outside_roots' });
    const message = (refused as { message: string }).message;
    expect(message).toContain(join(root, 'escape'));
    expect(message).not.toContain('private-elsewhere');

    expect(resolveUnderRoots(join(root, 'alias'), roots)).toEqual({ ok: true, path: join(roots[0]!, 'api') });
  });
});
