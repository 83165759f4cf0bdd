/**
 * A temp HOME and project for the real Codex CLI under a runner root: the pinned native binary as
 * `codex` on PATH, CODEX_HOME's config.toml pointing it at a model server (as
 * test/agents/helpers/codex.ts does), no hooks. `pointAt` moves it to another server: each agent
 * the runner starts reads the config anew.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentBinaries } from '../../agents/helpers/claude.js';

export interface CodexHome {
  /** The runner's root, holding the project, HOME and the `codex` link. */
  root: string;
  dir: string;
  codexHome: string;
  /** The runner's environment for it. */
  env: Record<string, string>;
  pointAt(modelUrl: string): void;
  remove(): void;
}

export function codexHome(modelUrl: string): CodexHome {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'session-hub-runner-codex-')));
  const dir = join(root, 'project');
  const home = join(root, 'home');
  const codexHome = join(home, '.codex');
  mkdirSync(dir, { recursive: true });
  mkdirSync(codexHome, { recursive: true });
  const pointAt = (url: string) =>
    writeFileSync(
      join(codexHome, 'config.toml'),
      ['model = "gpt-5-codex"', 'model_provider = "scripted"', '', '[model_providers.scripted]', 'name = "scripted"', `base_url = ${JSON.stringify(`${url}/v1`)}`, 'wire_api = "responses"', 'env_key = "SCRIPTED_API_KEY"', ''].join('\n'),
    );
  pointAt(modelUrl);
  const bin = join(root, 'bin');
  mkdirSync(bin);
  symlinkSync(agentBinaries().codex, join(bin, 'codex'));
  return {
    root,
    dir,
    codexHome,
    env: { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: home, CODEX_HOME: codexHome, SCRIPTED_API_KEY: 'scripted-test-key' },
    pointAt,
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
