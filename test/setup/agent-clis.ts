import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { installAgentClis, type AgentClis } from '../agents/helpers/agent-clis.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The real agent CLIs' native binaries (pinned in test/agents/clis), or why they are missing. */
    agentClis: AgentClis | { error: string };
  }
}

/**
 * The real agent CLIs for test/agents: `@anthropic-ai/claude-code` and `@openai/codex` at the
 * versions pinned in test/agents/clis/package-lock.json, installed once per machine into a cache
 * outside the repo (test/agents/helpers/agent-clis.ts). When the install fails, only the agent
 * tests fail, with the reason.
 */
export default async function setup(project: TestProject): Promise<void> {
  try {
    project.provide('agentClis', await installAgentClis(resolve(import.meta.dirname, '../agents/clis')));
  } catch (error) {
    project.provide('agentClis', { error: `the pinned agent CLIs could not be installed: ${(error as Error).message}` });
  }
}
