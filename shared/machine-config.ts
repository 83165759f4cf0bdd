/**
 * Where a machine runner keeps its identity on its computer, so that a restart is the same machine
 * and the hook bridge of a terminal-started agent on that computer can name it (docs/machines.md):
 * `$XDG_CONFIG_HOME/session-hub/machine.json`, else `~/.config/session-hub/machine.json`
 * (`SESSION_HUB_MACHINE_FILE` overrides both). One definition for the runner, which writes it, and
 * the hook bridge, which only reads it.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { MachineIdSchema } from './protocol/machines.js';

export const MachineFileSchema = z.object({ machineId: MachineIdSchema });
export type MachineFile = z.infer<typeof MachineFileSchema>;

export function machineFilePath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SESSION_HUB_MACHINE_FILE) return env.SESSION_HUB_MACHINE_FILE;
  const configHome = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(configHome, 'session-hub', 'machine.json');
}

/** The machine id kept on this computer, or undefined when no runner made one (or the file is not ours). */
export function readMachineId(env: NodeJS.ProcessEnv = process.env): string | undefined {
  try {
    const parsed = MachineFileSchema.safeParse(JSON.parse(readFileSync(machineFilePath(env), 'utf8')));
    return parsed.success ? parsed.data.machineId : undefined;
  } catch {
    return undefined;
  }
}
