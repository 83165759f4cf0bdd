/**
 * Recording the payloads a real agent sent to its hooks as fixtures (test/hook/fixtures/agents/
 * <agent>-<version>-<scenario>.json, `{ source, payloads }`): written only when SESSION_HUB_RECORD_FIXTURES=1, so a
 * normal run never rewrites the tree. Paths of the temp project and HOME are replaced by
 * placeholders so a fixture reads the same from any run.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AgentProject } from './claude.js';

export const FIXTURE_DIR = resolve(import.meta.dirname, '../../hook/fixtures/agents');

export function saveFixture(scenario: string, project: AgentProject, payloads: Record<string, unknown>[], source?: string): void {
  if (process.env.SESSION_HUB_RECORD_FIXTURES !== '1') return;
  // Claude Code names a project's transcript folder by its path, every non-alphanumeric a dash
  const dashed = (path: string) => path.replace(/[^a-zA-Z0-9]/g, '-');
  const text = JSON.stringify(payloads, null, 2).split(project.dir).join('/work/project').split(project.home).join('/home/user').split(dashed(project.dir)).join(dashed('/work/project'));
  const recorded = JSON.parse(text) as unknown[];
  writeFileSync(resolve(FIXTURE_DIR, `${project.agent}-${scenario}.json`), `${JSON.stringify({ source: source ?? `${project.agent} from npm, its real hook payloads recorded by test/agents (${scenario}; scripted model server)`, payloads: recorded }, null, 2)}\n`);
}
