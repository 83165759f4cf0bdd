/**
 * Each test file's own HOME (test/setup/own-home.ts): what the hub's CLI and hooks read by default
 * is the file's, never the machine's, and a developer's own exports do not reach the tests.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultSpoolDir } from '../../hub/hook/spool.js';

describe('a test file runs with its own HOME', () => {
  it('is a fresh directory under the temp dir, not the machine HOME, and os.homedir() follows it', () => {
    const home = process.env.HOME!;
    expect(home.startsWith(join(tmpdir(), 'session-hub-test-home-'))).toBe(true);
    expect(home).not.toBe(process.env.SESSION_HUB_TEST_MACHINE_HOME);
    expect(homedir()).toBe(home);
    expect(process.env.XDG_CONFIG_HOME).toBe(join(home, '.config'));
    expect(existsSync(join(home, '.session-hub'))).toBe(false);
  });

  it("the hook spool the CLI reads by default is this file's, in a child process too", () => {
    expect(defaultSpoolDir(process.env)).toBe(join(process.env.HOME!, '.session-hub'));
    const printed = execFileSync(process.execPath, ['-e', 'process.stdout.write(require("node:os").homedir())'], { encoding: 'utf8' });
    expect(printed).toBe(process.env.HOME);
  });

  it('keeps no SESSION_HUB_ setting of the machine but the tests\' own', () => {
    const leaked = Object.keys(process.env).filter((key) => key.startsWith('SESSION_HUB_') && !key.startsWith('SESSION_HUB_TEST_') && key !== 'SESSION_HUB_AGENT_CLI_CACHE');
    expect(leaked).toEqual([]);
  });
});
