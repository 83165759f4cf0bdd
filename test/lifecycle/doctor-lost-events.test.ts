/**
 * Issue 23, the hub's half of "doctor notices events that were lost anyway": `session-hub doctor`
 * (the real CLI, on the real hub's database) lists turns whose Stop never came (closed by the sweep
 * as `timeout`) and hook sessions that never ended (the hub ended them after silence), and says
 * what to do. A Stop that came late, or a SessionEnd that came, is not listed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import { runCli } from '../helpers/cli.js';
import { closeTestHubsAfterEach, startTestHub, type TestHub } from '../helpers/hub.js';
import { fixture } from '../hook/run-cli.js';
import { hookPoster } from './hook-poster.js';

const dirs: string[] = [];
closeTestHubsAfterEach();
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

const lifecycle = fixture('claude-tool-lifecycle.json');
const sessionPayloads = fixture('claude-session.json');
const as = (tag: string, payload: Record<string, unknown>) => ({ ...payload, session_id: tag });
const START = lifecycle[0]!;
const PROMPT = lifecycle[1]!;
const STOP = sessionPayloads.find((p) => p.hook_event_name === 'Stop')!;
const END = sessionPayloads.find((p) => p.hook_event_name === 'SessionEnd')!;

let hub: TestHub;
let clock: ManualClock;
const hook = hookPoster(() => ({ hub, clock }));

describe('doctor: hook events lost anyway', () => {
  it('lists the turn whose Stop never came and the session that never ended, says what to do, and leaves out the ones that came', async () => {
    const dataDir = tempDir('session-hub-doctor-lost-');
    // the real hub, a few hours in the past, sweeping only when told
    clock = new ManualClock(Date.now() - 3 * 3_600_000);
    hub = await startTestHub({ dataDir, clock, config: { sweepMs: 3_600_000 } });

    // lost-stop: a prompt, then nothing; it ends properly later
    const lostStopSid = (await hook(as('lost-stop', START))).results[0]!.sid!;
    await hook(as('lost-stop', PROMPT));
    // late-stop: its Stop comes after the timeout and lands
    await hook(as('late-stop', START));
    await hook(as('late-stop', PROMPT));
    clock.advance(hub.deps.config.turnTimeoutMs + 1);
    expect((await hub.sweepNow()).turnsTimedOut).toBe(2);
    await hook(as('late-stop', STOP));
    await hook(as('late-stop', END));
    await hook(as('lost-stop', END));
    // never-ended: started, never said it ended; the hub ends it after the idle time
    await hook(as('never-ended', START));
    clock.advance(hub.deps.config.idleMs + 1);
    expect((await hub.sweepNow()).silentRunsEnded).toBe(1);
    // doctor reads the database beside the running hub

    const env = { SESSION_HUB_SPOOL_DIR: tempDir('session-hub-doctor-spool-') };
    const json = await runCli(['doctor', '--data', dataDir, '--json'], { env });
    expect(json.code, json.stderr).toBe(1);
    const report = JSON.parse(json.stdout) as { lostStops: { sid: string; tag: string; prompt: string }[]; unendedSessions: { tag: string }[] };
    expect(report.lostStops.map((f) => [f.sid, f.tag, f.prompt])).toEqual([[lostStopSid, 'lost-stop', 'Run the test suite']]);
    expect(report.unendedSessions.map((f) => f.tag)).toEqual(['never-ended']);

    const text = await runCli(['doctor', '--data', dataDir], { env });
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/Turns whose Stop never reached the hub \(1 in the last 7 days\)/);
    expect(text.stdout).toContain('agent session lost-stop');
    expect(text.stdout).toContain('"Run the test suite"');
    expect(text.stdout).toMatch(/Sessions that never ended \(1 in the last 7 days\)/);
    expect(text.stdout).toContain('agent session never-ended');
    expect(text.stdout).toContain('run `session-hub hook status` on the agent\'s machine');
    expect(text.stdout).not.toContain('late-stop');
  });
});
