/** The machine's id: read from its config file, or made once and written there (shared/machine-config.ts). */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { machineFilePath, readMachineId } from '../shared/machine-config.js';

export function loadOrCreateMachineId(env: NodeJS.ProcessEnv = process.env): string {
  const known = readMachineId(env);
  if (known) return known;
  const file = machineFilePath(env);
  const machineId = randomUUID();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify({ machineId }, null, 2)}\n`, { mode: 0o600 });
  return machineId;
}
