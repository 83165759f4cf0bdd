/**
 * For a file of real-runner tests: one real hub process and one real runner process (machine token,
 * the given roots and environment), started once the runner is registered and online, and stopped
 * in the right order (the runner first: it stops its agents; then the hub and its data).
 */
import { expect } from 'vitest';
import type { ListedMachine } from '../../../shared/protocol/machines.js';
import { waitFor } from '../../helpers/clients.js';
import { httpCall } from '../../helpers/http-call.js';
import { spawnHub, type HubProcess } from '../../helpers/hub-process.js';
import { TEST_TOKENS } from '../../helpers/tokens.js';
import { spawnRunner, type RunnerProcess } from './runner-process.js';

export interface HubAndRunner {
  hub: HubProcess;
  runner: RunnerProcess;
  /** The runner's machine as the hub lists it, once online. */
  machine: ListedMachine;
  /** One JSON call to the hub as the operator. */
  call(method: string, path: string, body?: unknown): ReturnType<typeof httpCall>;
  stop(): Promise<void>;
}

export async function startHubAndRunner(options: { roots: string[]; env: Record<string, string> }): Promise<HubAndRunner> {
  const hub = await spawnHub();
  const call = (method: string, path: string, body?: unknown) => httpCall(hub.url, method, path, body === undefined ? {} : { body });
  const runner = spawnRunner({ hubUrl: hub.url, token: TEST_TOKENS.machine, roots: options.roots, env: options.env });
  let machine: ListedMachine | undefined;
  await waitFor(async () => {
    machine = ((await call('GET', '/api/machines')).body.machines as ListedMachine[]).find((m) => m.online);
    return machine !== undefined;
  }, 30_000, `the runner registers; output:\n${runner.output()}`);
  expect(machine).toBeDefined();
  return {
    hub,
    runner,
    machine: machine!,
    call,
    async stop() {
      await runner.stop();
      await hub.stop();
      await hub.cleanup();
    },
  };
}
