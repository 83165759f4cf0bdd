import { execFileSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Tests that run the real hub process use the compiled CLI (and the bundled hook bridge): build once
 * before the suite, as `npm run build` does (so a later `npm start` finds dist current).
 *
 * The two caches every test file shares are named here, from the machine's own HOME, before each
 * file gets a HOME of its own (test/setup/own-home.ts); workers inherit this process's environment.
 */
export default function setup(): void {
  const machineHome = process.env.HOME?.trim() ? process.env.HOME : homedir();
  process.env.npm_config_cache ??= join(machineHome, '.npm');
  process.env.SESSION_HUB_TEST_MACHINE_HOME = machineHome;
  process.env.SESSION_HUB_AGENT_CLI_CACHE ??= join(process.env.XDG_CACHE_HOME ?? join(machineHome, '.cache'), 'session-hub', 'agent-clis');
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
}
