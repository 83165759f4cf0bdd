/**
 * Whether the agent that ran this hook still runs, for the background waiter (./wake-hook.ts): a
 * waiter that outlived its agent must not take a person's message nobody will read. The agent is
 * the hook's parent, or the parent's parent when the agent ran the command through a shell; either
 * dying re-parents what it left behind, which is what is watched: our parent changes, or (where
 * /proc tells) our parent's parent does. Part of the bridge bundle: Node built-ins only.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

/** Field `index` (0: state, 1: ppid, 19: start time) of `pid`'s /proc stat (Linux), or undefined where it cannot be read. */
function statField(pid: number, index: number): string | undefined {
  try {
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[index];
  } catch {
    return undefined;
  }
}

/** The parent pid of `pid` from /proc (Linux), or undefined where it cannot be read. */
function parentOf(pid: number): number | undefined {
  const ppid = Number(statField(pid, 1));
  return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
}

/** Shells an agent may run a hook command through (`sh -c "<command>"`). */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'busybox', 'fish']);

/** `pid`'s command line (Linux), or undefined where it cannot be read. */
function argvOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return undefined;
  }
}

/** Programs that run a script named by their first argument: the script is the program. */
const SCRIPT_RUNNERS = new Set(['node', 'nodejs', 'bun', 'deno']);
/** How far up the hook's ancestors the agent is looked for (hook ← shell ← wrapper ← shell ← agent is 4). */
const MAX_ANCESTORS = 8;

/** Whether `argv` runs one of `names`: argv[0]'s name, or the script a node-like runtime runs. */
function runsProgram(argv: readonly string[], names: readonly string[]): boolean {
  const program = basename(argv[0] ?? '');
  if (names.includes(program)) return true;
  return SCRIPT_RUNNERS.has(program) && argv[1] !== undefined && names.includes(basename(argv[1]));
}

/**
 * The pid of the agent that runs this hook. With the flavor's `processNames` (the registry's
 * `agentKeeper`): the nearest ancestor that runs the agent's program, found by what it is, so a
 * wrapper between them (`npx session-hub`, `pnpm dlx`, a person's script: each exits after the hook)
 * is never taken for the agent; none found: undefined (no keeper, never a guess). Without: our
 * parent, or our grandparent when the parent is the shell the agent ran our command through
 * (`<shell> -c …`). Undefined where /proc cannot tell (not Linux).
 */
export function agentPidOfHook(processNames?: readonly string[]): number | undefined {
  if (processNames !== undefined) {
    for (let pid: number | undefined = process.ppid, level = 0; pid !== undefined && pid > 1 && level < MAX_ANCESTORS; pid = parentOf(pid), level++) {
      const argv = argvOf(pid);
      if (argv === undefined) return undefined;
      if (runsProgram(argv, processNames)) return pid;
    }
    return undefined;
  }
  const parent = process.ppid;
  const argv = argvOf(parent);
  if (argv === undefined) return undefined;
  const wrapped = SHELLS.has(basename(argv[0] ?? '').replace(/^-/, '')) && argv.includes('-c');
  return wrapped ? parentOf(parent) : parent;
}

/** Whether process `pid` runs (kill 0: EPERM means it runs as another user). */
function runs(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Calls `onGone` once, within `everyMs`, when process `pid` has exited (a pid reused by another
 * process counts as exited: its start time differs, where /proc tells); returns the stop.
 */
export function watchPid(pid: number, onGone: () => void, everyMs = 1000): () => void {
  const startedAt = statField(pid, 19);
  const timer = setInterval(() => {
    if (runs(pid) && (startedAt === undefined || statField(pid, 19) === startedAt)) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
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
