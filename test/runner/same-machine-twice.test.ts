/**
 * Two runners of one machine (the same machine.json: a second runner started by mistake, a copied
 * config) kicked each other off about twice a second, for ever (issue 45.6). The later one wins,
 * once: the earlier is told why, stops, and does not reconnect. Real hub and runner processes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ListedMachine } from '../../shared/protocol/machines.js';
import { waitFor } from '../helpers/clients.js';
import { httpCall } from '../helpers/http-call.js';
import { spawnHub, stopHubsAfterEach } from '../helpers/hub-process.js';
import { TEST_TOKENS } from '../helpers/tokens.js';
import { spawnRunner, type RunnerProcess } from './helpers/runner-process.js';

stopHubsAfterEach();
const runners: RunnerProcess[] = [];
let dir: string | undefined;
afterEach(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.stop()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const registrations = (runner: RunnerProcess) => runner.logs().filter((line) => line.msg === 'registered').length;

describe('two runners with one machine id', () => {
  it('the later one wins once: the earlier is told why, exits non-zero and stays down; no ping-pong', async () => {
    const hub = await spawnHub();
    dir = mkdtempSync(join(tmpdir(), 'session-hub-same-machine-'));
    const start = () => {
      const runner = spawnRunner({ hubUrl: hub.url, token: TEST_TOKENS.machine, roots: [dir!], env: { XDG_CONFIG_HOME: dir!, HOME: dir! } });
      runners.push(runner);
      return runner;
    };
    const first = start();
    await waitFor(() => registrations(first) === 1, 30_000, `the first runner registers:\n${first.output()}`);
    const firstExit = new Promise<number | null>((resolve) => first.child.once('exit', (code) => resolve(code)));
    const second = start();
    await waitFor(() => registrations(second) === 1, 30_000, `the second runner registers:\n${second.output()}`);

    expect(await firstExit).toBe(1);
    expect(first.output()).toMatch(/another runner registered machine .* does not reconnect/);
    // a few seconds on: one registration each, the second still there and online
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect([registrations(first), registrations(second)]).toEqual([1, 1]);
    expect(second.child.exitCode).toBeNull();
    const machines = (await httpCall(hub.url, 'GET', '/api/machines')).body.machines as ListedMachine[];
    expect(machines).toHaveLength(1);
    expect(machines[0]!.online).toBe(true);
  }, 90_000);
});
