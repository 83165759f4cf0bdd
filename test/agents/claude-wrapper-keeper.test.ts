/**
 * An agent whose hooks run through a wrapper is not taken for dead (issue 46.3): our hooks installed
 * with `hook install claude --command "npx session-hub"` (as docs/hooks.md offers), the real Claude
 * Code CLI interactive in a pseudo-terminal, a real hub process. `npx` exits after every hook; the
 * agent keeper watches the nearest ancestor that runs `claude` (the registry's `processNames`), so
 * a turn that runs a tool for seconds past the wrapper's exit stays open and completes; killed with
 * kill -9, the agent is still seen gone within seconds. The wrapper resolves `session-hub` from the
 * project's own node_modules (npm offline: nothing is fetched).
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { spawnHub, stopHubsAfterEach, type HubProcess } from '../helpers/hub-process.js';
import { removeSpool, stopDrainers } from '../hook/run-cli.js';
import { startAnthropicServer } from './helpers/anthropic-server.js';
import { agentBinaries, claudeProject } from './helpers/claude.js';
import { eventually, hubView } from './helpers/hub-view.js';
import { startInPty } from './helpers/pty.js';
import { cleanUpsAfterEach } from '../helpers/clean-ups.js';

const CLI = resolve(import.meta.dirname, '../../dist/hub/cli.js');

stopHubsAfterEach();
let hub: HubProcess;
const view = hubView(() => hub);
const cleanUps = cleanUpsAfterEach();

/** `session-hub` as the project's own dependency, so `npx session-hub` runs it offline (as an installed package would). */
function installAsDependency(dir: string): void {
  const pkg = join(dir, 'node_modules', 'session-hub');
  mkdirSync(pkg, { recursive: true });
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'session-hub', version: '0.0.0-test', bin: { 'session-hub': 'cli.mjs' } }));
  writeFileSync(join(pkg, 'cli.mjs'), `#!/usr/bin/env node\nawait import(${JSON.stringify(pathToFileURL(CLI).href)});\n`);
  chmodSync(join(pkg, 'cli.mjs'), 0o755);
  symlinkSync('../session-hub/cli.mjs', join(dir, 'node_modules', '.bin', 'session-hub'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'project', private: true, dependencies: { 'session-hub': '0.0.0-test' } }));
}

describe('an agent whose hooks run through npx', () => {
  it('stays alive on the hub past the wrapper exiting after each hook, and is still seen gone when killed', async () => {
    hub = await spawnHub({ env: { SESSION_HUB_AGENT_ALIVE_MS: '3000', SESSION_HUB_SWEEP_MS: '500' } });
    const spoolDir = mkdtempSync(join(tmpdir(), 'session-hub-spool-'));
    const model = await startAnthropicServer({ tools: [{ name: 'Bash', input: { command: 'sleep 8', description: 'Wait a while' } }], finalText: 'Done waiting.' });
    const project = await claudeProject({
      modelUrl: model.url,
      hubEnv: { SESSION_HUB_URL: hub.url, SESSION_HUB_TOKEN: hub.tokens.agent, SESSION_HUB_SPOOL_DIR: spoolDir, npm_config_offline: 'true', npm_config_update_notifier: 'false' },
      allow: ['Bash(sleep:*)'],
      installArgs: ['--command', 'npx session-hub'],
    });
    cleanUps.push(() => removeSpool(spoolDir), () => model.close(), () => project.remove(), () => stopDrainers(spoolDir));
    installAsDependency(project.dir);
    expect(readFileSync(join(project.dir, '.claude', 'settings.json'), 'utf8')).toContain('npx session-hub hook claude');

    const run = startInPty([agentBinaries().claude, 'Wait eight seconds with bash, please'], { cwd: project.dir, env: { ...project.env, COLUMNS: '120', LINES: '40' } });
    const agentPid = () => Number(readFileSync(`/proc/${run.child.pid}/task/${run.child.pid}/children`, 'utf8').trim().split(/\s+/)[0]);
    cleanUps.push(() => {
      if (run.child.exitCode !== null) return;
      try {
        process.kill(agentPid(), 'SIGKILL');
      } catch {
        // already gone
      }
      run.child.kill('SIGKILL');
    });

    const { sid } = await eventually(async () => (await view.sessions()).find((s) => s.flavor === 'claude'), 60_000, 'the session on the hub');
    await eventually(async () => ((await view.turns(sid)).at(-1)?.activities.some((a) => a.tool === 'Bash' && a.status === 'running') ? true : undefined), 60_000, 'the Bash tool running on the hub');
    // the tool runs 8 s; the wrapper of its PreToolUse hook exited long before that
    await eventually(async () => ((await view.turns(sid)).at(-1)?.status === 'completed' ? true : undefined), 60_000, 'the turn completed on the hub');
    const done = await view.session(sid);
    expect(done.lifecycle.lastRun, JSON.stringify(done.lifecycle)).toMatchObject({ status: 'running' });
    expect(done.activity).not.toBe('lost');
    expect((await view.turns(sid)).at(-1)).toMatchObject({ response: 'Done waiting.' });

    process.kill(agentPid(), 'SIGKILL');
    const lost = await eventually(async () => {
      const snapshot = await view.session(sid);
      return snapshot.activity === 'lost' ? snapshot : undefined;
    }, 15_000, 'the killed agent seen gone');
    expect(lost.lifecycle).toMatchObject({ state: 'ended', reason: 'agent_gone' });
  }, 150_000);
});
