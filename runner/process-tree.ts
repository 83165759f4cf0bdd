/**
 * An agent process in its own process group (spawned detached), so that stopping it reaches every
 * process it started: TERM to the group, then KILL after a delay. Only groups this runner spawned
 * are ever signalled.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export interface AgentProcess {
  child: ChildProcessWithoutNullStreams;
  /** Resolves once the leader exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** TERM to the group, KILL after `killAfterMs`; resolves when the leader exited and the group is gone. */
  stop(killAfterMs: number): Promise<void>;
  /** The last lines of stderr (for a spawn that failed). */
  stderrTail(): string;
}

const STDERR_KEEP = 4096;

export function spawnAgentProcess(command: string, args: string[], options: { cwd: string; env: Record<string, string> }): AgentProcess {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-STDERR_KEEP);
  });
  child.stdin.on('error', () => undefined);
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
      // children the leader left behind in its group (a tool's shell) go too
      signalGroup('SIGKILL');
    },
  };
}
