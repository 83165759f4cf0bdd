/**
 * Whether the agent that ran this hook still runs, for the background waiter (./wake-hook.ts): a
 * waiter that outlived its agent must not take a person's message nobody will read. The agent is
 * the hook's parent, or the parent's parent when the agent ran the command through a shell; either
 * dying re-parents what it left behind, which is what is watched: our parent changes, or (where
 * /proc tells) our parent's parent does. Part of the bridge bundle: Node built-ins only.
 */
import { readFileSync } from 'node:fs';

/** The parent pid of `pid` from /proc (Linux), or undefined where it cannot be read. */
function parentOf(pid: number): number | undefined {
  try {
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return undefined;
  }
}

/** Calls `onGone` once, within `everyMs`, when the agent this process runs under has exited; returns the stop. */
export function watchAgent(onGone: () => void, everyMs = 1000): () => void {
  const parent = process.ppid;
  const grandparent = parentOf(parent);
  const timer = setInterval(() => {
    const gone = process.ppid !== parent || (grandparent !== undefined && parentOf(parent) !== grandparent);
    if (!gone) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
