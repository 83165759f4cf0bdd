/**
 * A temp HOME and project for the real Claude Code CLI driven by the runner: onboarding done, the
 * project trusted, pointed at a scripted model server; no hooks installed (the runner reports).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAKE_ANTHROPIC_KEY, writeClaudeState } from '../../agents/helpers/claude.js';

export interface ClaudeHome {
  root: string;
  dir: string;
  home: string;
  /** What the agent needs beyond what the runner builds: HOME and the model server. */
  env: Record<string, string>;
  remove(): void;
}

export function claudeHome(modelUrl: string, projects = ['project']): ClaudeHome {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'session-hub-runner-')));
  const home = join(root, 'home');
  mkdirSync(home, { recursive: true });
  const dirs = projects.map((name) => join(root, name));
  for (const dir of dirs) mkdirSync(dir, { recursive: true });
  writeClaudeState(home, dirs);
  const env = {
    HOME: home,
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: FAKE_ANTHROPIC_KEY,
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
  };
  return { root, dir: dirs[0]!, home, env, remove: () => rmSync(root, { recursive: true, force: true }) };
}
