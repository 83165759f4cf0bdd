/**
 * The agent's guard (spec section 14: agents do not outlive their runner, even killed with -9). Node
 * cannot ask for a parent-death signal, so the runner starts this small process per agent, as the
 * leader of its own process group: `node agent-guard.js <command> <args...>`, its stdin, stdout and
 * stderr the runner's pipes to the agent, and one more pipe (fd 3) from the runner, the lifeline.
 * The guard starts the agent in its group with those three pipes passed straight through (no shell):
 * - the agent exits: the guard exits with the agent's code or signal (the runner reads it as the agent's);
 * - the lifeline closes (the runner died, however): TERM to the agent's processes, KILL after a grace;
 * - a TERM (the runner's stop, sent to the group): the agent's to handle; once it exited, what it
 *   left running is killed.
 * "The agent's processes" are its group and every process below it: Claude Code runs each Bash tool
 * in a session of its own (setsid), out of reach of a group signal, so the guard also walks /proc
 * (Linux) for the agent's descendants, remembering them, since they outlive the agent's death as
 * orphans of pid 1. Node built-ins only, and nothing written to stdout (the agent's protocol stream).
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Socket } from 'node:net';

/** Between TERM and KILL of an orphaned agent: long enough to exit cleanly, short enough that nothing runs on. */
const ORPHAN_KILL_AFTER_MS = 2000;
const LIFELINE_FD = 3;

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('agent-guard: no command (usage: agent-guard <command> [args...], started by session-hub runner)\n');
  process.exit(2);
}

/** Every process's parent, from /proc (empty where there is no /proc: the group signal alone then). */
function parents(): Map<number, number> {
  const table = new Map<number, number>();
  let names: string[] = [];
  try {
    names = readdirSync('/proc');
  } catch {
    return table;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // after the command's closing parenthesis: state, then the parent's pid
      table.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  return table;
}

/** The agent's descendants seen so far: kept, since an orphan's parent becomes pid 1. */
const known = new Set<number>();
function rememberTree(): void {
  const table = parents();
  const roots = [agent.pid, ...known].filter((pid): pid is number => pid !== undefined);
  const queue = [...roots];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    for (const [child, parent] of table) {
      if (parent !== pid || known.has(child) || child === process.pid) continue;
      known.add(child);
      queue.push(child);
    }
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone already
  }
}

/** TERM or KILL to the agent, everything below it, and (KILL) the group, the guard with it. */
function signalAll(name: NodeJS.Signals): void {
  rememberTree();
  for (const pid of known) if (pid !== agent.pid) signal(pid, name);
  signal(-process.pid, name);
}

const agent = spawn(command, args, { stdio: 'inherit' });
let orphaned = false;
let stopping = false;
// the group's TERM/INT is the agent's to handle; the guard notes what runs below it and waits for its exit
for (const name of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.on(name, () => {
    stopping = true;
    rememberTree();
  });
}

agent.once('error', (error) => {
  process.stderr.write(`agent-guard: cannot start ${command}: ${error.message}\n`);
  process.exit(127);
});

agent.once('exit', (code, signalName) => {
  // stopped or orphaned: what the agent left running (a tool in a session of its own) goes too
  if (stopping || orphaned) {
    rememberTree();
    for (const pid of known) signal(pid, 'SIGKILL');
  }
  if (orphaned) signal(-process.pid, 'SIGKILL');
  if (signalName) {
    process.removeAllListeners(signalName);
    process.kill(process.pid, signalName);
    return;
  }
  process.exit(code ?? 1);
});

const lifeline = new Socket({ fd: LIFELINE_FD, readable: true, writable: false });
const runnerGone = () => {
  if (orphaned) return;
  orphaned = true;
  signalAll('SIGTERM');
  setTimeout(() => signalAll('SIGKILL'), ORPHAN_KILL_AFTER_MS);
};
lifeline.on('data', () => undefined);
lifeline.once('end', runnerGone);
lifeline.once('close', runnerGone);
lifeline.once('error', runnerGone);
