/**
 * issue 26.9: a spool that cannot be written (a full disk) does not drop the event: it is sent to
 * the hub directly, stderr says so, no lock file is left behind to stall the next hooks, and `hook
 * status` says the spool cannot be written. Damaged files set aside (`*.corrupt`) are reported too.
 * The full disk is a real one: a 64 KiB tmpfs filled to the last byte (this needs root to mount;
 * elsewhere, as on CI, a directory without write permission gives the same kind of real error, EACCES).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestHub, closeTestHubsAfterEach, type TestHub } from '../helpers/hub.js';
import { fixture, hubReader, hubSpool, removeSpool, sendHooks, stopDrainers } from './run-cli.js';

const claude = fixture('claude-session.json');
const tag = claude[0]!.session_id as string;
let hub: TestHub;
let how: 'tmpfs full' | 'no write permission';
closeTestHubsAfterEach();
const { sessionByTag } = hubReader(() => hub);

/** A spool dir that cannot be written: a tiny tmpfs filled up, or (not root) a read-only directory. */
function unwritableSpoolDir(): string {
  const mountPoint = mkdtempSync(join(tmpdir(), 'session-hub-full-'));
  cleanup = () => {
    const spool = join(mountPoint, 'spool');
    stopDrainers(spool);
    if (how === 'tmpfs full') execFileSync('umount', [mountPoint]);
    else chmodSync(spool, 0o755);
    rmSync(mountPoint, { recursive: true, force: true });
  };
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mountPoint], { stdio: 'ignore' });
    how = 'tmpfs full';
    mkdirSync(join(mountPoint, 'spool'));
    // fill it: one file as large as the file system lets it grow
    try {
      writeFileSync(join(mountPoint, 'filler'), Buffer.alloc(128 * 1024));
    } catch {
      // ENOSPC: full
    }
    return join(mountPoint, 'spool');
  } catch {
    how = 'no write permission';
    const dir = join(mountPoint, 'spool');
    mkdirSync(dir);
    chmodSync(dir, 0o555);
    return dir;
  }
}

beforeEach(async () => {
  hub = await startTestHub();
});
let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

describe('a spool that cannot be written', () => {
  it('sends the event directly, says so, leaves no lock behind, and hook status reports it', { timeout: 60_000 }, async () => {
    const spoolDir = unwritableSpoolDir();
    const env = { SESSION_HUB_URL: hub.url, SESSION_HUB_TOKEN: hub.tokens.runner, SESSION_HUB_SPOOL_DIR: spoolDir };
    const [started, prompted] = await sendHooks('claude', claude.slice(0, 2), env);
    for (const call of [started!, prompted!]) {
      expect(call, how).toMatchObject({ code: 0, stdout: '' });
      expect(call.stderr).toMatch(/the spool cannot be written \((ENOSPC|EACCES)/);
      expect(call.stderr).toContain('was sent to the hub directly (applied)');
    }
    const session = await sessionByTag(tag);
    expect(session.lifecycle.state).toBe('running');
    expect(session.currentTurn?.prompt).toBe('Add a --verbose flag to the CLI');

    // nothing half-made is left: no (empty) lock file to stall the next hooks
    const leftovers = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? leftovers(join(dir, n)) : [n]));
    expect(leftovers(spoolDir).filter((n) => n.endsWith('.lock') || n.endsWith('.tmp'))).toEqual([]);

    const status = await runCli(['hook', 'status'], { env: { SESSION_HUB_SPOOL_DIR: spoolDir } });
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/the spool cannot be written \((ENOSPC|EACCES)/);
  });

  it('with the hub down too: says the event is lost (never silently)', { timeout: 60_000 }, async () => {
    const spoolDir = unwritableSpoolDir();
    const [call] = await sendHooks('claude', [claude[0]!], { SESSION_HUB_URL: 'http://127.0.0.1:9', SESSION_HUB_TOKEN: hub.tokens.runner, SESSION_HUB_SPOOL_DIR: spoolDir });
    expect(call).toMatchObject({ code: 0, stdout: '' });
    expect(call!.stderr).toMatch(/the spool cannot be written \((ENOSPC|EACCES).*and the hub could not take it .*is lost/);
  });
});

describe('damaged files set aside', () => {
  let spoolDir: string;
  beforeEach(() => {
    spoolDir = mkdtempSync(join(tmpdir(), 'session-hub-spool-'));
    cleanup = () => removeSpool(spoolDir);
  });

  it('are reported by hook status (exit 1), each file named', async () => {
    const env = { SESSION_HUB_URL: hub.url, SESSION_HUB_TOKEN: hub.tokens.runner, SESSION_HUB_SPOOL_DIR: spoolDir };
    const dir = hubSpool(env);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'spool-claude.jsonl'), 'torn line {\n');
    await sendHooks('claude', [claude[0]!], env);
    const status = await runCli(['hook', 'status'], { env: { SESSION_HUB_SPOOL_DIR: spoolDir } });
    expect(status.code).toBe(1);
    expect(status.stdout).toContain('damaged files set aside (1)');
    expect(status.stdout).toContain(`${dir.slice(spoolDir.length + 1)}/spool-claude.jsonl.corrupt (12 bytes)`);
  });
});
