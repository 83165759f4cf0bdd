/**
 * The machine's identity: its id and its taker key, read from its config file, or made once and
 * written there (shared/machine-config.ts), mode 0600: a restart is the same machine and the same
 * taker of its sessions' messages. A file from before the taker key gets one added.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { machineFilePath, readMachineFile } from '../shared/machine-config.js';

export interface MachineIdentity {
  machineId: string;
  takerKey: string;
}

export function loadOrCreateMachineIdentity(env: NodeJS.ProcessEnv = process.env): MachineIdentity {
  const known = readMachineFile(env);
  if (known?.takerKey) return { machineId: known.machineId, takerKey: known.takerKey };
  const identity = { machineId: known?.machineId ?? randomUUID(), takerKey: randomBytes(24).toString('base64url') };
  const file = machineFilePath(env);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  // written aside and renamed: a reader (the hook bridge) never sees half a file
  const next = `${file}.${process.pid}.tmp`;
  writeFileSync(next, `${JSON.stringify(identity, null, 2)}\n`, { mode: 0o600 });
  chmodSync(next, 0o600);
  renameSync(next, file);
  return identity;
}
