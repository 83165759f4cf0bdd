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

function versionOf(path: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(path, ['--version'], { timeout: VERSION_TIMEOUT_MS }, (error, stdout) => {
      const line = String(stdout).split('\n').map((l) => l.trim()).find(Boolean);
      resolve(error || !line ? null : line.slice(0, 200));
    });
  });
}

/** The commands the runner looks for on PATH, one per drivable agent ("claude, codex"). */
export function drivableClis(): string[] {
  return [...FLAVORS.values()].flatMap((flavor) => (flavor.runner ? [flavor.runner.cli] : []));
}

/** Every drivable agent found on PATH, with its version. */
export async function findAgents(pathVar = process.env.PATH ?? ''): Promise<MachineAgent[]> {
  const found = [...FLAVORS.values()].flatMap((flavor) => {
    const path = flavor.runner ? findOnPath(flavor.runner.cli, pathVar) : undefined;
    return path ? [{ flavor: flavor.id, path }] : [];
  });
  return Promise.all(found.map(async (agent) => ({ ...agent, version: await versionOf(agent.path) })));
}
