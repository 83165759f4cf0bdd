/**
 * The agent CLIs this machine has: for each flavor the registry says the runner can drive, its CLI
 * found on PATH, and what `<cli> --version` prints (machine-register's `agents`).
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { FLAVORS } from '../shared/flavors.js';
import type { MachineAgent } from '../shared/protocol/machines.js';

const VERSION_TIMEOUT_MS = 10_000;

/** The first executable file named `name` on `PATH`, or undefined. */
export function findOnPath(name: string, pathVar = process.env.PATH ?? ''): string | undefined {
  for (const dir of pathVar.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** What `<cli> --version` printed first, or why it printed nothing usable. */
function versionOf(path: string): Promise<{ version: string | null; problem?: string }> {
  return new Promise((resolve) => {
    execFile(path, ['--version'], { timeout: VERSION_TIMEOUT_MS }, (error, stdout, stderr) => {
      const firstLine = (text: unknown) => String(text).split('\n').map((l) => l.trim()).find(Boolean);
      const line = firstLine(stdout);
      if (!error && line) return resolve({ version: line.slice(0, 200) });
      const said = firstLine(stderr) ?? error?.message ?? 'printed nothing';
      resolve({ version: null, problem: `\`${path} --version\` failed: ${said.slice(0, 300)}` });
    });
  });
}

/** The commands the runner looks for on PATH, one per drivable agent ("claude, codex"). */
export function drivableClis(): string[] {
  return [...FLAVORS.values()].flatMap((flavor) => (flavor.runner ? [flavor.runner.cli] : []));
}

/**
 * Every drivable agent found on PATH, with its version. One whose `--version` fails is still offered
 * (the probe may fail where a run would not) and `onProblem` hears why: a broken install (Claude
 * Code's "native binary not installed") is then in the runner's log before anyone clicks Start.
 */
export async function findAgents(pathVar = process.env.PATH ?? '', onProblem: (agent: { flavor: string; path: string }, problem: string) => void = () => undefined): Promise<MachineAgent[]> {
  const found = [...FLAVORS.values()].flatMap((flavor) => {
    const path = flavor.runner ? findOnPath(flavor.runner.cli, pathVar) : undefined;
    return path ? [{ flavor: flavor.id, path }] : [];
  });
  return Promise.all(
    found.map(async (agent) => {
      const { version, problem } = await versionOf(agent.path);
      if (problem) onProblem(agent, problem);
      return { ...agent, version };
    }),
  );
}
