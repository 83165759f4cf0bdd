/**
 * Hook calls the agent killed before the bridge had the event (SIGTERM while node was still
 * starting or reading stdin: an async hook of an earlier install when `claude -p` exits, or a hook
 * timeout): the event is lost, and only the bridge can tell. Each such kill appends a line to
 * `killed-<flavor>.jsonl` in the spool directory; `hook status` counts them. Bundled into the
 * bridge: node built-ins only.
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface KilledHook {
  at: number;
  signal: string;
  /** When the hook process started (the agent fired the hook). */
  firedAt: number;
}

const fileOf = (dir: string, flavor: string) => join(dir, `killed-${flavor}.jsonl`);

export function noteKilledHook(dir: string, flavor: string, killed: KilledHook): void {
  try {
    mkdirSync(dir, { recursive: true });
    appendFileSync(fileOf(dir, flavor), `${JSON.stringify(killed)}\n`);
  } catch {
    // nowhere to write: nothing more to do in a process being killed
  }
}

export function killedHooks(dir: string, flavor: string): KilledHook[] {
  let text: string;
  try {
    text = readFileSync(fileOf(dir, flavor), 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').flatMap((line) => {
    try {
      const value = JSON.parse(line) as KilledHook;
      return typeof value.at === 'number' ? [value] : [];
    } catch {
      return [];
    }
  });
}
