/**
 * What every real-agent test file sets up: a hub the hook bridge sends to (a fresh one per test),
 * a view of it over HTTP, and the scripted model server and agent project each test starts, closed
 * and removed after the test whatever it asserted.
 */
import { afterEach } from 'vitest';
import type { TestHub } from '../../helpers/hub.js';
import { useBridgeHub } from '../../hook/run-cli.js';
import type { AgentProject } from './claude.js';
import { hubView } from './hub-view.js';
import type { ModelServer } from './model-server.js';

export function useAgentHub() {
  let hub: TestHub;
  const { env } = useBridgeHub((started) => ({ hub } = started));
  const cleanUps: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanUp of cleanUps.splice(0)) await cleanUp();
  });
  return {
    /** The hook environment (hub URL, runner token, spool directory) of this test's hub. */
    env,
    /** This test's hub (its URL and tokens). */
    hub: () => hub,
    view: hubView(() => hub),
    /** The model server started, closed after the test. */
    async model<T extends ModelServer>(starting: Promise<T>): Promise<T> {
      const model = await starting;
      cleanUps.push(() => model.close());
      return model;
    },
    /** The project made, removed after the test (after the model server closes). */
    async project<T extends AgentProject>(making: Promise<T>): Promise<T> {
      const project = await making;
      cleanUps.push(() => project.remove());
      return project;
    },
  };
}
