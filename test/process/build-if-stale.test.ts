/**
 * `npm start` and `npm run hub` build only when a source changed: with dist current (the suite's
 * global setup has just built it), `scripts/build.mjs --if-stale` leaves dist alone and returns
 * at once instead of running tsc (seconds).
 */
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

describe('build --if-stale', () => {
  it('skips the build when dist is current: no output rewritten', async () => {
    const cli = resolve(root, 'dist/hub/cli.js');
    const before = statSync(cli).mtimeMs;
    await promisify(execFile)(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: root });
    // tsc rewrites every output it emits: an unchanged one means it did not run (no timing asserted: a loaded machine is slow either way)
    expect(statSync(cli).mtimeMs).toBe(before);
  });
});
