import { afterEach } from 'vitest';
import type { ModelServer } from '../../agents/helpers/model-server.js';
import type { ClaudeHome } from './claude-home.js';
import type { RunnerProcess } from './runner-process.js';

/** What a real-runner test starts: the scripted model server, Claude Code's home, the runner process. */
export interface RunnerParts {
  model?: ModelServer;
  home?: ClaudeHome;
  runner?: RunnerProcess;
}

/** The parts a test sets, stopped and removed after each test (the runner first: it stops its agents). */
export function runnerPartsAfterEach(): RunnerParts {
  const parts: RunnerParts = {};
  afterEach(async () => {
    await parts.runner?.stop();
    await parts.model?.close();
    parts.home?.remove();
    delete parts.runner;
    delete parts.model;
    delete parts.home;
  });
  return parts;
}
