/**
 * An agent process under its guard (./agent-guard.ts), the leader of its own process group (spawned
 * detached), so that stopping it reaches every process the agent started: TERM to the group, then
 * KILL after a delay. The guard holds a lifeline pipe from this process: when the runner dies, even
 * by SIGKILL, the guard ends the group. Only groups this runner spawned are ever signalled.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface AgentProcess {
  /** The guard: the group leader; its stdio are the agent's, its exit is the agent's. */
  child: ChildProcessWithoutNullStreams;
  /** Resolves once the leader exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** TERM to the group, KILL after `killAfterMs`; resolves when the leader exited and the group is gone. */
  stop(killAfterMs: number): Promise<void>;
  /** The last lines of stderr (for a spawn that failed). */
  stderrTail(): string;
}

const STDERR_KEEP = 4096;

/** The compiled guard beside this file; run from the sources (the tests), the build's. */
function guardScript(): string {
  const beside = join(import.meta.dirname, 'agent-guard.js');
  return existsSync(beside) ? beside : resolve(import.meta.dirname, '..', 'dist', 'runner', 'agent-guard.js');
}

export function spawnAgentProcess(command: string, args: string[], options: { cwd: string; env: Record<string, string> }): AgentProcess {
  // stdio 0-2 go through the guard to the agent; fd 3 is the lifeline, closed by the kernel when this process dies
  const child = spawn(process.execPath, [guardScript(), command, ...args], { cwd: options.cwd, env: options.env, detached: true, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] }) as unknown as ChildProcessWithoutNullStreams;
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-STDERR_KEEP);
  });
  child.stdin.on('error', () => undefined);
  child.stdio[3]?.on('error', () => undefined);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  const signalGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // the group is gone already
    }
  };
  return {
    child,
    exited,
    stderrTail: () => stderr.split('\n').filter(Boolean).slice(-10).join('\n'),
    async stop(killAfterMs) {
      signalGroup('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), killAfterMs);
      await exited;
      clearTimeout(timer);
      // children the agent left behind in its group (a tool's shell) go too
      signalGroup('SIGKILL');
    },
  };
}
