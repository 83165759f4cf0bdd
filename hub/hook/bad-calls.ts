/**
 * Hook calls that sent nothing because the call itself was wrong (an unknown flavor, a payload that
 * is not a JSON object or names no session): the agent's hook is misconfigured, which stderr alone
 * would hide (agents rarely show a hook's stderr). Kept in `<spool dir>/bad-calls.jsonl`, the newest
 * MAX_KEPT, for `hook status` and `doctor`. Best effort: a call that cannot write it still says so on stderr.
 */
import { appendFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface BadCall {
  at: number;
  flavor: string;
  problem: string;
}

const MAX_KEPT = 50;
const TRIM_ABOVE_BYTES = 32 * 1024;

export function badCallsFile(spoolDir: string): string {
  return join(spoolDir, 'bad-calls.jsonl');
}

export function recordBadCall(spoolDir: string, call: BadCall): void {
  const file = badCallsFile(spoolDir);
  try {
    mkdirSync(spoolDir, { recursive: true });
    appendFileSync(file, `${JSON.stringify(call)}\n`);
    if (statSync(file).size > TRIM_ABOVE_BYTES) writeFileSync(file, `${readBadCalls(spoolDir).slice(-MAX_KEPT).map((c) => JSON.stringify(c)).join('\n')}\n`);
  } catch {
    // stderr has said it
  }
}

export function readBadCalls(spoolDir: string): BadCall[] {
  let text: string;
  try {
    text = readFileSync(badCallsFile(spoolDir), 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').flatMap((line) => {
    try {
      const call = JSON.parse(line) as BadCall;
      return typeof call.at === 'number' && typeof call.problem === 'string' ? [call] : [];
    } catch {
      return [];
    }
  });
}
