/**
 * A hub restart while the real Claude Code CLI waits on an approval (issue 46.4): Claude Code
 * interactive in a pseudo-terminal, our hooks installed, its PermissionRequest hook waiting on a real
 * hub process. The hub is killed (kill -9) or stopped (SIGTERM) and started again on the same port
 * and database: the approval it had reads `interrupted` (the hub restarted), never "nobody decided
 * in time"; the session never reads "needs you" with nothing to decide; the hook asks again on the
 * restarted hub, and the Allow given there runs the tool.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Approval } from '../../shared/protocol/attention.js';
import { spawnHub, stopHubsAfterEach, type HubProcess } from '../helpers/hub-process.js';
import { removeSpool, stopDrainers } from '../hook/run-cli.js';
import { startAnthropicServer } from './helpers/anthropic-server.js';
import { claudeInteractive, claudeProject } from './helpers/claude.js';
import { eventually, hubView } from './helpers/hub-view.js';
import { cleanUpsAfterEach } from '../helpers/clean-ups.js';

stopHubsAfterEach();
let hub: HubProcess;
const view = hubView(() => hub);
const cleanUps = cleanUpsAfterEach();

/** "Needs you · wants approval" is only true with a pending approval to decide. */
async function expectNoApprovalWithoutButtons(sid: string): Promise<void> {
  const session = await view.session(sid);
  if (session.attention?.kind !== 'permission') return;
  const pending = (await view.approvals(sid)).filter((a) => a.status === 'pending');
  expect(pending.length, `attention ${JSON.stringify(session.attention)} with no pending approval`).toBeGreaterThan(0);
}

describe('claude (interactive) waiting on an approval across a hub restart', () => {
  it.each(['kill -9', 'SIGTERM'] as const)('the hub %s and started again: the approval reads interrupted, the hook asks again, and the Allow given after the restart runs the tool', async (how) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'session-hub-restart-'));
    const spoolDir = mkdtempSync(join(tmpdir(), 'session-hub-spool-'));
    cleanUps.push(() => rmSync(dataDir, { recursive: true, force: true }));
    hub = await spawnHub({ dataDir });
    const model = await startAnthropicServer({ tools: [{ name: 'Bash', input: { command: 'touch allowed-after-restart.txt', description: 'Make a file' } }], finalText: 'All done.' });
    const project = await claudeProject({ modelUrl: model.url, hubEnv: { SESSION_HUB_URL: hub.url, SESSION_HUB_TOKEN: hub.tokens.runner, SESSION_HUB_SPOOL_DIR: spoolDir } });
    cleanUps.push(() => removeSpool(spoolDir), () => model.close(), () => project.remove(), () => stopDrainers(spoolDir));

    let sid: string | undefined;
    let first: Approval | undefined;
    let again: Approval | undefined;
    const ready = async () => {
      sid ??= (await view.sessions()).find((s) => s.flavor === 'claude')?.sid;
      if (sid === undefined) return false;
      if (first === undefined) {
        first = (await view.approvals(sid)).find((a) => a.status === 'pending');
        if (first === undefined) return false;
        expect(first).toMatchObject({ tool: 'Bash', input: { command: 'touch allowed-after-restart.txt' } });
        if (how === 'kill -9') await hub.kill9();
        else await hub.stop();
        // down a while: the hook must wait for the hub, not give up and send the agent to its terminal
        await new Promise((resolve) => setTimeout(resolve, 3000));
        hub = await spawnHub({ dataDir, port: hub.port });
        return false;
      }
      if (again === undefined) {
        await expectNoApprovalWithoutButtons(sid);
        const approvals = await view.approvals(sid);
        const old = approvals.find((a) => a.approvalId === first!.approvalId)!;
        if (old.status === 'pending') return false;
        expect(old, 'the approval the restart ended').toMatchObject({ status: 'interrupted', message: 'the hub stopped or restarted before anyone decided' });
        again = approvals.find((a) => a.status === 'pending');
        if (again === undefined) return false;
        expect(again).toMatchObject({ tool: 'Bash', input: { command: 'touch allowed-after-restart.txt' } });
        expect(await view.decide(sid, again.approvalId, 'allow')).toBe(200);
      }
      return (await view.turns(sid)).at(-1)?.status === 'completed';
    };
    const run = await claudeInteractive(project, 'Make a file with bash, please', ready, 110_000);
    expect(run.code, run.screen.slice(-2000)).toBe(0);
    expect(existsSync(join(project.dir, 'allowed-after-restart.txt')), 'the tool allowed after the restart ran').toBe(true);
    const turn = (await view.turns(sid!)).at(-1)!;
    expect(turn).toMatchObject({ status: 'completed', response: 'All done.' });
    expect(turn.activities.map((a) => [a.tool, a.status])).toEqual([['Bash', 'done']]);
    const approvals = await view.approvals(sid!);
    expect(approvals.map((a) => a.status).sort()).toEqual(['allowed', 'interrupted']);
    expect(approvals.some((a) => a.status === 'expired'), 'nothing reads "nobody decided in time"').toBe(false);
  }, 150_000);
});
