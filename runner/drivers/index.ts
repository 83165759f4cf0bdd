/** The driver modules by the name the flavor registry gives (`runner.driver`). */
import type { RunnerDeclaration } from '../../shared/flavors.js';
import { startClaudeStreamJson } from './claude-stream-json.js';
import { startCodexAppServer } from './codex-app-server.js';
import type { DriverFactory } from './driver.js';

export const DRIVERS: Partial<Record<RunnerDeclaration['driver'], DriverFactory>> = {
  'claude-stream-json': startClaudeStreamJson,
  'codex-app-server': startCodexAppServer,
};
