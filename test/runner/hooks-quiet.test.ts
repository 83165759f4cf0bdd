/**
 * An agent the runner drives carries SESSION_HUB_RUNNER_DRIVEN=1: where the project also has our
 * hooks installed, the bridge does nothing (the runner reports each turn; the hooks would report it
 * twice). Without the marker, the same call spools its event.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RUNNER_DRIVEN_ENV } from '../../shared/runner-driven.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'session-hub-quiet-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const payload = JSON.stringify({ session_id: 'abc-1', hook_event_name: 'UserPromptSubmit', cwd: dir, prompt: 'hi' });
const files = (spool: string) => {
  try {
    return readdirSync(spool, { recursive: true }).length;
  } catch {
    return 0;
  }
};

describe('the hook bridge under a runner-driven agent', () => {
  it('does nothing with the marker, spools without it', async () => {
    const quiet = join(dir, 'quiet');
    const run = await runCli(['hook', 'claude'], { stdin: payload, env: { SESSION_HUB_SPOOL_DIR: quiet, [RUNNER_DRIVEN_ENV]: '1' } });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(files(quiet)).toBe(0);
    const loud = join(dir, 'loud');
    await runCli(['hook', 'claude'], { stdin: payload, env: { SESSION_HUB_SPOOL_DIR: loud } });
    expect(files(loud)).toBeGreaterThan(0);
  }, 30_000);
});
