import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import { collectUpdates, connectDashboard, connectRunner, startSession, waitFor, type RunnerSocket } from '../helpers/clients.js';
import { closeTestHubsAfterEach, startTestHub, type TestHub } from '../helpers/hub.js';
import { runCli } from '../helpers/cli.js';
import { getSnapshot, until } from './http.js';

let hub: TestHub | undefined;
const dirs: string[] = [];
closeTestHubsAfterEach();
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'session-hub-doctor-'));
  dirs.push(dir);
  return dir;
}

async function clearToken(runner: RunnerSocket, sid: string, version: number, key: string) {
  const ack = await runner.emitWithAck('update-metadata', { sid, expectedVersion: version, patch: { [key]: null } });
  expect(ack.result).toBe('success');
}

/** Sessions with each problem doctor looks for, written through the real hub three hours in the past. */
async function seedProblems(dir: string) {
  hub = await startTestHub({ dataDir: dir, clock: new ManualClock(Date.now() - 3 * 3_600_000), config: { sweepMs: 3_600_000 } });
  const runner = await connectRunner(hub.url, hub.tokens.runner);
  const archived = await startSession(runner, { flavor: 'cursor', metadata: { path: '/a', cursorSessionId: 'cur-1', cursorSessionProtocol: 'acp' } });
  await clearToken(runner, archived.sid, 1, 'cursorSessionId');
  await runner.emitWithAck('update-metadata', { sid: archived.sid, expectedVersion: 2, metadata: { lifecycleState: 'archived', archivedBy: 'cli', archiveReason: 'Session crashed' } });
  const ended = await startSession(runner, { metadata: { path: '/b', claudeSessionId: 'claude-1' } });
  await clearToken(runner, ended.sid, 1, 'claudeSessionId');
  await runner.emitWithAck('session-end', { sid: ended.sid, reason: 'completed' });
  const healthy = await startSession(runner, { metadata: { path: '/c', claudeSessionId: 'claude-2' } });
  await runner.emitWithAck('session-end', { sid: healthy.sid, reason: 'completed' });
  const stillRunning = await startSession(runner, { metadata: { path: '/d', claudeSessionId: 'claude-3' } });
  await clearToken(runner, stillRunning.sid, 1, 'claudeSessionId');

  const lostRunner = await connectRunner(hub.url, hub.tokens.runner);
  const lost = await startSession(lostRunner, { metadata: { path: '/e', claudeSessionId: 'claude-4' } });
  await lostRunner.emitWithAck('prompt-submit', { sid: lost.sid, prompt: 'half-way' });
  lostRunner.disconnect();
  await until(async () => !(await getSnapshot(hub!.url, hub!.tokens.runner, lost.sid)).body.presence.active, 'the hub to see the runner go');
  return { archived: archived.sid, ended: ended.sid, healthy: healthy.sid, stillRunning: stillRunning.sid, lost: lost.sid };
}

async function doctorJson(dir: string) {
  const result = await runCli(['doctor', '--data', dir, '--json']);
  return { code: result.code, report: JSON.parse(result.stdout) };
}

describe('session-hub doctor and repair', () => {
  it('doctor finds missing tokens, stuck runs and old open turns, even while the hub runs; repair --dry-run changes nothing; repair --all fixes the tokens', async () => {
    const dir = dataDir();
    const sids = await seedProblems(dir);

    const { code, report } = await doctorJson(dir); // the hub is still running on this database
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    expect(report.missingTokens.map((f: any) => [f.sid, f.tokenKey, f.state]).sort()).toEqual(
      [
        [sids.archived, 'cursorSessionId', 'archived'],
        [sids.ended, 'claudeSessionId', 'ended'],
      ].sort(),
    );
    expect(report.stuckRuns.map((f: any) => f.sid)).toEqual([sids.lost]);
    expect(report.openTurns.map((f: any) => f.sid)).toEqual([sids.lost]);

    const human = await runCli(['doctor', '--data', dir]);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain('Missing resume tokens (2)');
    expect(human.stdout).toContain(`session-hub repair --all --data ${dir}`);
    expect(human.stdout).toContain('Runs stuck as running (1)');
    expect(human.stdout).toContain('Turns open too long (1)');
    expect(human.stdout).toContain('4 problem(s) found.');
    await hub!.close();
    hub = undefined;

    const dry = await runCli(['repair', '--all', '--dry-run', '--data', dir]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`${sids.archived}: would restore cursorSessionId, cursorSessionProtocol`);
    expect(dry.stdout).toContain(`${sids.stillRunning}: would restore claudeSessionId`);
    expect(dry.stdout).toContain('dry run: would repair 3 of 5 session(s); nothing was written');
    expect((await doctorJson(dir)).report.missingTokens).toHaveLength(2);

    const fixed = await runCli(['repair', '--all', '--data', dir]);
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toContain(`${sids.ended}: restored claudeSessionId as version 3`);
    expect(fixed.stdout).toContain('repaired 3 of 5 session(s)');
    expect(fixed.stderr).toContain('repaired 3/5 sessions checked (of 5)');
    const after = await doctorJson(dir);
    expect(after.report.missingTokens).toEqual([]);
    expect(after.code).toBe(1); // the lost run and its turn are still there

    // the hub's own sweeps settle the rest: the open turn at boot, the lost run after its grace
    hub = await startTestHub({ dataDir: dir, config: { sweepMs: 50, runGraceMs: 100 } });
    await until(async () => (await getSnapshot(hub!.url, hub!.tokens.runner, sids.lost)).body.lifecycle.lastRun.status === 'interrupted', 'the sweep');
    const repaired = (await getSnapshot(hub.url, hub.tokens.runner, sids.archived)).body;
    expect(repaired.metadata.value).toMatchObject({ cursorSessionId: 'cur-1', cursorSessionProtocol: 'acp' });
    await hub.close();
    hub = undefined;
    const clean = await runCli(['doctor', '--data', dir]);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain('No problems found.');
    expect((await doctorJson(dir)).report).toMatchObject({ ok: true, missingTokens: [], stuckRuns: [], openTurns: [] });
  });

  it('repair --url --token goes through the running hub, so the change is broadcast; --dry-run there writes nothing', async () => {
    hub = await startTestHub();
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner, { flavor: 'cursor', metadata: { path: '/a', cursorSessionId: 'cur-9', cursorSessionProtocol: 'acp' } });
    await clearToken(runner, session.sid, 1, 'cursorSessionId');
    const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
    await dashboard.emitWithAck('subscribe', {});
    const seen = collectUpdates(dashboard);

    const dry = await runCli(['repair', '--sid', session.sid, '--dry-run', '--url', hub.url, '--token', hub.tokens.admin]);
    expect(dry).toMatchObject({ code: 0, stdout: expect.stringContaining(`${session.sid}: would restore cursorSessionId, cursorSessionProtocol at version 2`) });
    expect((await getSnapshot(hub.url, hub.tokens.runner, session.sid)).body.metadata.version).toBe(2);

    const denied = await runCli(['repair', '--sid', session.sid, '--url', hub.url, '--token', hub.tokens.runner]);
    expect(denied.code).toBe(2);
    expect(denied.stderr).toContain('403');
    expect(denied.stderr).toContain('admin token');

    const done = await runCli(['repair', '--sid', session.sid, '--url', hub.url, '--token', hub.tokens.admin]);
    expect(done).toMatchObject({ code: 0, stdout: expect.stringContaining(`${session.sid}: restored cursorSessionId, cursorSessionProtocol as version 3`) });
    await waitFor(() => seen.some((e) => e.body.t === 'update-session' && e.body.metadata?.version === 3), 3000, 'the repair broadcast');
    const all = await runCli(['repair', '--all', '--url', hub.url, '--token', hub.tokens.admin]);
    expect(all).toMatchObject({ code: 0, stdout: expect.stringContaining('repaired 0 of 1 session(s)') });
  });

  it('explains usage mistakes with exit code 2, and every command has --help', async () => {
    for (const command of ['doctor', 'repair', 'start']) {
      const help = await runCli([command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`session-hub ${command}`);
    }
    const missing = await runCli(['doctor', '--data', join(tmpdir(), 'surely-not-a-hub-dir')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no hub database at');
    expect(missing.stderr).toContain('--data DIR');
    const both = await runCli(['repair', '--sid', 'x', '--all']);
    expect(both).toMatchObject({ code: 2, stderr: expect.stringContaining('exactly one of --sid SID and --all') });
    const unknown = await runCli(['repair', '--sid', 'nope', '--data', dataDir()]);
    expect(unknown.code).toBe(2);
  });
});
