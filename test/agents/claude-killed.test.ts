/**
 * A hook session whose agent is gone without a session end shows "lost contact" (issue 34.2), with
 * real parts: a real hub process, our hooks installed by `hook install claude --write`, the real
 * Claude Code CLI interactive in a pseudo-terminal against a scripted model server.
 * - killed with kill -9 while a tool runs: within seconds the session's activity is `lost` (ended
 *   `agent_gone` by the agent's keeper), its open turn aborted, and a message posted after stays
 *   queued (nothing is delivered to an agent that is not there);
 * - alive and idle past the alive window and the idle window: still `idle`, not lost (its keeper
 *   reports), where before the idle window alone ended it `runner_silent`.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { spawnHub, stopHubsAfterEach, type HubProcess } from '../helpers/hub-process.js';
import { removeSpool, stopDrainers } from '../hook/run-cli.js';
import { startAnthropicServer } from './helpers/anthropic-server.js';
import { agentBinaries, claudeProject, type AgentProject } from './helpers/claude.js';
import { eventually, hubView } from './helpers/hub-view.js';
import type { ModelServer } from './helpers/model-server.js';
import { startInPty, type PtyRun } from './helpers/pty.js';
import { cleanUpsAfterEach } from '../helpers/clean-ups.js';

stopHubsAfterEach();
let hub: HubProcess;
const view = hubView(() => hub);
const cleanUps = cleanUpsAfterEach();

/** A hub process whose alive window is 3 s (sweeping every 500 ms), its idle window `idleMs`. */
async function setUp(model: Promise<ModelServer>, options: { idleMs?: number } = {}) {
  hub = await spawnHub({ env: { SESSION_HUB_AGENT_ALIVE_MS: '3000', SESSION_HUB_SWEEP_MS: '500', ...(options.idleMs ? { SESSION_HUB_IDLE_MS: String(options.idleMs) } : {}) } });
  const spoolDir = mkdtempSync(join(tmpdir(), 'session-hub-spool-'));
  const started = await model;
  const project: AgentProject = await claudeProject({
    modelUrl: started.url,
    hubEnv: { SESSION_HUB_URL: hub.url, SESSION_HUB_TOKEN: hub.tokens.agent, SESSION_HUB_SPOOL_DIR: spoolDir },
    allow: ['Bash(sleep:*)'],
  });
  cleanUps.push(() => removeSpool(spoolDir), () => started.close(), () => project.remove(), () => stopDrainers(spoolDir));
  return project;
}

/** Interactive `claude <prompt>` in a pseudo-terminal; killed at the end of the test if still running. */
function interactive(project: AgentProject, prompt: string): PtyRun {
  const run = startInPty([agentBinaries().claude, prompt], { cwd: project.dir, env: { ...project.env, COLUMNS: '120', LINES: '40' } });
  cleanUps.push(() => {
    if (run.child.exitCode !== null) return;
    // the agent itself first: killing `script` alone leaves it writing into the test's home
    try {
      process.kill(agentPidOf(run), 'SIGKILL');
    } catch {
      // already gone
    }
    run.child.kill('SIGKILL');
  });
  return run;
}

/** The agent's pid: `script` runs it (`exec`) as its one child. */
function agentPidOf(run: PtyRun): number {
  const children = readFileSync(`/proc/${run.child.pid}/task/${run.child.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
  expect(children).toHaveLength(1);
  return children[0]!;
}

const sessionOfClaude = () => eventually(async () => (await view.sessions()).find((s) => s.flavor === 'claude'), 60_000, 'the session on the hub');

describe('interactive claude, its agent process gone or alive', () => {
  it('killed with kill -9 while a tool runs: lost contact within seconds, its turn aborted, a message posted after stays queued', async () => {
    const project = await setUp(startAnthropicServer({ tools: [{ name: 'Bash', input: { command: 'sleep 20', description: 'Wait a while' } }], finalText: 'Done waiting.' }));
    const run = interactive(project, 'Wait twenty seconds with bash, please');
    const { sid } = await sessionOfClaude();
    await eventually(async () => ((await view.turns(sid)).at(-1)?.activities.some((a) => a.tool === 'Bash' && a.status === 'running') ? true : undefined), 60_000, 'the Bash tool running on the hub');
    expect((await view.session(sid)).activity).toBe('working');

    const killedAt = Date.now();
    process.kill(agentPidOf(run), 'SIGKILL');
    const lost = await eventually(async () => {
      const snapshot = await view.session(sid);
      return snapshot.activity === 'lost' ? snapshot : undefined;
    }, 15_000, 'the session lost on the hub');
    expect(Date.now() - killedAt).toBeLessThan(15_000);
    expect(lost.lifecycle).toMatchObject({ state: 'ended', reason: 'agent_gone', by: 'hub', lastRun: { status: 'interrupted', reason: 'agent_gone' } });
    expect((await view.turns(sid)).at(-1)).toMatchObject({ status: 'aborted', prompt: 'Wait twenty seconds with bash, please' });

    expect(await view.post(sid, 'Are you there?')).toBe(201);
    await new Promise((r) => setTimeout(r, 2000)); // a waiter or hook still alive would take it within this
    expect(await view.messages(sid)).toMatchObject([{ text: 'Are you there?', state: 'queued', deliveredAt: null }]);
    expect((await view.session(sid)).activity).toBe('lost');
  }, 120_000);

  it('alive and idle past the alive window and the idle window: idle, not lost (its keeper reports)', async () => {
    const project = await setUp(startAnthropicServer({ tools: [], finalText: 'All done.' }), { idleMs: 4000 });
    const run = interactive(project, 'Say you are done');
    const { sid } = await sessionOfClaude();
    await eventually(async () => ((await view.turns(sid)).at(-1)?.status === 'completed' ? true : undefined), 60_000, 'the turn completed on the hub');
    // both windows pass several times over, the sweep running every 500 ms
    await new Promise((r) => setTimeout(r, 9000));
    const snapshot: SessionSnapshot = await view.session(sid);
    expect(snapshot.activity, JSON.stringify(snapshot.lifecycle)).toBe('idle');
    expect(snapshot.lifecycle.lastRun).toMatchObject({ status: 'running' });
    expect(run.child.exitCode).toBeNull();
  }, 120_000);
});
