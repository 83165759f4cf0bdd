/**
 * Every test file runs with its own HOME and XDG directories (issue 49): nothing a test reads or
 * writes by default — the hook spool (~/.session-hub), the hooks' config and the runner's machine
 * id (~/.config/session-hub), an agent's own store — is the machine's, or another file's running
 * beside it. Child processes inherit it through process.env. Two things stay shared on purpose,
 * both caches of what the registry serves, named by test/global-setup.ts from the machine's HOME:
 * npm's cache and the pinned agent CLIs (test/setup/agent-clis.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const home = mkdtempSync(join(tmpdir(), 'session-hub-test-home-'));
process.env.HOME = home;
process.env.XDG_CONFIG_HOME = join(home, '.config');
process.env.XDG_CACHE_HOME = join(home, '.cache');
process.env.XDG_DATA_HOME = join(home, '.local', 'share');
process.env.XDG_STATE_HOME = join(home, '.local', 'state');
// what a developer's shell exports for their own hooks and runner never reaches a test
for (const key of Object.keys(process.env)) {
  if (key.startsWith('SESSION_HUB_') && !key.startsWith('SESSION_HUB_TEST_') && key !== 'SESSION_HUB_AGENT_CLI_CACHE') delete process.env[key];
}

afterAll(() => rmSync(home, { recursive: true, force: true }));
