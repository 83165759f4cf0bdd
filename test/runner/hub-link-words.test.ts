/**
 * What the runner tells the person running it about its link to the hub (issue 46): nothing listens
 * at --hub (exit 1 at once, naming the refused connection and what to check, not a timeout after
 * retrying), a token that is not a machine token (naming the machine token it needs and how to make
 * one), and a hub that goes away and comes back (a warning that it lost the hub, then that it is
 * connected again, and the machine online again). Real hub and runner processes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ListedMachine } from '../../shared/protocol/machines.js';
import { unreachableUrl } from '../agents/helpers/refusing-model-server.js';
import { runCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/clients.js';
import { httpCall } from '../helpers/http-call.js';
import { spawnHub, stopHubsAfterEach } from '../helpers/hub-process.js';
import { TEST_TOKENS } from '../helpers/tokens.js';
import { spawnRunner } from './helpers/runner-process.js';

const root = mkdtempSync(join(tmpdir(), 'session-hub-runner-link-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
stopHubsAfterEach();

describe("the runner's link to the hub, in words a person can act on", () => {
  it('nothing listens at --hub: exit 1 at once, the connection refused and what to check', async () => {
    const url = await unreachableUrl();
    const run = await runCli(['runner', '--root', root, '--hub', url], { env: { SESSION_HUB_MACHINE_TOKEN: TEST_TOKENS.machine } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`no hub answers at ${url}: connection refused (nothing listens there); is the hub running (session-hub start), and is --hub (or SESSION_HUB_URL) its address?`);
  }, 30_000);

  it("an agent's token: refused, naming the machine token it needs and how to make one", async () => {
    const hub = await spawnHub();
    const run = await runCli(['runner', '--root', root, '--hub', hub.url], { env: { SESSION_HUB_MACHINE_TOKEN: TEST_TOKENS.agent } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('forbidden: this is not a machine token');
    expect(run.stderr).toContain('session-hub token create --role machine');
  }, 30_000);

  it('the hub goes away and comes back: the runner says it lost the hub, then that it is connected again; the machine is online again', async () => {
    let hub = await spawnHub();
    const { dataDir, port } = hub;
    const runner = spawnRunner({ hubUrl: hub.url, token: TEST_TOKENS.machine, roots: [root], env: { XDG_CONFIG_HOME: join(root, 'config') } });
    try {
      const online = async () => ((await httpCall(hub.url, 'GET', '/api/machines')).body.machines as ListedMachine[]).some((m) => m.online);
      await waitFor(online, 30_000, `the runner registers; output:\n${runner.output()}`);
      await hub.stop();
      await waitFor(async () => runner.logs().some((l) => l.level === 'warn' && String(l.msg).startsWith('lost the hub')), 15_000, `the runner says it lost the hub; output:\n${runner.output()}`);
      expect(runner.child.exitCode).toBeNull();
      hub = await spawnHub({ dataDir, port });
      await waitFor(async () => runner.logs().some((l) => l.msg === 'connected to the hub again'), 30_000, `the runner says it is back; output:\n${runner.output()}`);
      await waitFor(online, 15_000, 'the machine online again');
    } finally {
      await runner.stop();
    }
  }, 90_000);
});
