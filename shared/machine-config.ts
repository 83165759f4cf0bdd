/**
 * Where a machine runner keeps its identity on its computer, so that a restart is the same machine
 * and the hook bridge of a terminal-started agent on that computer can name it (docs/machines.md):
 * `$XDG_CONFIG_HOME/session-hub/machine.json`, else `~/.config/session-hub/machine.json`
 * (`SESSION_HUB_MACHINE_FILE` overrides both), holding `{ "machineId": "<uuid>", "takerKey": "…" }`
 * (mode 0600: the taker key proves the runner is its sessions' own taker of people's messages, so a
 * restarted runner is the same taker; docs/messages.md). One definition
 * for the runner, which writes it, and the hook bridge, which only reads it. Node built-ins only:
 * the bridge bundle loads nothing else.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** A machine id: what the runner makes (a UUID) fits; checked again by the protocol schema. */
export const MACHINE_ID_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

export interface MachineFile {
  machineId: string;
  /** The runner's taker key (docs/messages.md, "Who takes a message"); absent in files older than it. */
  takerKey?: string;
}

/** A taker key the hub accepts (shared/protocol/messages.ts TakerSchema): a random secret, 32 to 128 characters. */
export const TAKER_KEY_PATTERN = /^[A-Za-z0-9_-]{32,128}$/;

export function machineFilePath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SESSION_HUB_MACHINE_FILE) return env.SESSION_HUB_MACHINE_FILE;
  // the XDG spec: a relative XDG_CONFIG_HOME is invalid and ignored
  const configHome = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(configHome, 'session-hub', 'machine.json');
}

/** The machine id kept on this computer, or undefined when no runner made one (or the file is not one of ours). */
export function readMachineId(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return readMachineFile(env)?.machineId;
}

/** The machine file's valid fields, or undefined when there is none (or it is not one of ours). */
export function readMachineFile(env: NodeJS.ProcessEnv = process.env): MachineFile | undefined {
  try {
    const parsed = JSON.parse(readFileSync(machineFilePath(env), 'utf8')) as Partial<MachineFile> | null;
    const machineId = parsed?.machineId;
    if (typeof machineId !== 'string' || !MACHINE_ID_PATTERN.test(machineId)) return undefined;
    const takerKey = parsed?.takerKey;
    return { machineId, ...(typeof takerKey === 'string' && TAKER_KEY_PATTERN.test(takerKey) ? { takerKey } : {}) };
  } catch {
    return undefined;
  }
}
